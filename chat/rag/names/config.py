"""How names in a question steer retrieval (`PAPERCHAT_RETRIEVAL__NAMES__*`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from chat.rag.bounds import check_bounds, described

# The share of a question a defined name in capitals that spell an English word ("MARE")
# must hold to count: the default of both `NamesConfig.plain_share` (its terms are
# scholarly) and `RelevancePolicy.plain_name_share` (its question is answered).
PLAIN_NAME_SHARE = 0.75


@dataclass(frozen=True)
class NamesConfig:
    """Names the papers define, in the question (`PAPERCHAT_RETRIEVAL__NAMES__*`). Measured
    with `python -m bench.quality.names` and `bench.quality.retrieval` (docs/benchmarks.md)."""

    boost: float = field(
        default=1.0,
        metadata=described(
            "added to the (rescaled, 0 to about 2) score of each passage of a paper that "
            "defines a name in the question, scaled down for a name holding less than "
            "`about_share` of the question's term weight; 0 turns it off",
            at_least=0,
        ),
    )
    about_share: float = field(
        default=0.4,
        metadata=described(
            "from this share of the question's term weight on, the question is about the "
            "name and its papers get the whole boost; below it, a part",
            at_least=0.01,
        ),
    )
    # Against `about_share` 0.3 and no floor, this lifted questions-hard hybrid R@1
    # 0.753 -> 0.780 on the development index.
    min_share: float = field(
        default=0.2,
        metadata=described(
            'below this share the name is one topic among several ("India-focused VQA, OCR, '
            'translation eval"): it neither expands the question nor boosts; between it and '
            "`about_share` the boost grows",
            at_least=0,
        ),
    )
    plain_share: float = field(
        default=PLAIN_NAME_SHARE,
        metadata=described(
            'a defined name in capitals that spell an English word ("MARE") counts among '
            "the question's scholarly terms only from this share of it on (the relevance "
            "policy answers such a question from `PAPERCHAT_RELEVANCE__PLAIN_NAME_SHARE`)",
            at_least=0,
        ),
    )
    # BERT has 38 definers over the full index, FiD 1, DPR 6.
    max_steering_definers: int = field(
        default=20,
        metadata=described(
            'a name defined by more papers than this is everyone\'s ("MAE", "RL", '
            '"RAG"): it neither expands the question nor boosts',
            at_least=0,
        ),
    )
    max_definers: int = field(
        default=5,
        metadata=described(
            'a name defined by more papers than this is a common acronym ("LLMs"): its long '
            "form still expands the question and the papers introducing it are boosted, but "
            "not the others defining it",
            at_least=0,
        ),
    )
    max_folded_zipf: float = field(
        default=3.0,
        metadata=described(
            "a token in another case matches a case-marked name only when the name's lower "
            'case is this rare in English (zipf scale): "fid" 2.3 matches, "zero" 4.6 not'
        ),
    )
    long_forms: int = field(
        default=2,
        metadata=described("long forms of one name added to the question", at_least=0),
    )
    long_form_weight: float = field(
        default=0.7,
        metadata=described(
            "weight of the long forms' terms in BM25, against 1 for the question's own",
            at_least=0,
        ),
    )
    max_long_form_words: int = field(
        default=8,
        metadata=described(
            "longest written-out long form looked for in a question, in words", at_least=1
        ),
    )
    printing_sample: int = field(
        default=200,
        metadata=described(
            "passages (the words' best BM25 ones) read to tell how the papers print a "
            'question\'s words: a lower-case word as a word or a name ("eval" or EVAL), '
            'words typed apart as words or one name ("flash attention" or FlashAttention)',
            at_least=1,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)
