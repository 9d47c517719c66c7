"""Pseudo-relevance feedback: the words of the best first-pass passages, searched again.

A question in plain words ("spotting secret messages hidden in JPEG photos")
shares few terms with the paper that answers it ("steganalysis"), but the
passages a first retrieval ranks near the top usually do. Their most
distinctive terms (frequent in those passages, rare in the index) make a
second BM25 query, whose hits are fused as a list of their own.

On the dense side the same idea moves the question's vector (Rocchio): toward
the mean of the vectors of its best first-pass passages, and the vector
store is searched again with the moved one (`DenseFeedbackConfig`), for every
question or only for those in everyday words (`chat.rag.retrieval.style`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from chat.rag.bounds import check_bounds, described
from chat.rag.retrieval.style import Frequencies, StyleConfig, indexed_style
from chat.rag.retrieval.vocabulary import VocabularyConfig
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency


@dataclass(frozen=True)
class FeedbackConfig:
    """Pseudo-relevance feedback (`PAPERCHAT_RETRIEVAL__FEEDBACK__*`), measured best with
    `python -m bench.quality.fusion` (docs/design.md). It runs only when
    `FusionConfig.feedback_weight`, the list's weight in fusion, is above 0 (it is 0)."""

    passages: int = field(
        default=6,
        metadata=described("best dense passages read, at most one per paper", at_least=1),
    )
    terms: int = field(
        default=10,
        metadata=described("expansion terms searched with the question's own", at_least=1),
    )
    boost: float = field(
        default=1.0,
        metadata=described("an expansion term's weight against a question term's 1", at_least=0),
    )
    min_length: int = field(
        default=3,
        metadata=described(
            "shortest stem taken as an expansion term (shorter ones, units and symbols, say "
            "little)",
            at_least=0,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)


WeightedTerm = tuple[str, float]


def expansion_terms(
    passages: Sequence[str],
    question_terms: Sequence[str],
    document_frequency: Callable[[Sequence[str]], Mapping[str, int]],
    documents: int,
    config: FeedbackConfig,
) -> list[WeightedTerm]:
    """The `config.terms` best new terms of `passages`, weighted in (0, 1].

    A term's weight is its share of each passage's terms, summed over the
    passages, times its inverse document frequency in the index: a word the
    passages agree on and the index rarely holds names what they are about.
    """
    asked = set(question_terms)
    share: dict[str, float] = {}
    for text in passages:
        found = [t for t in terms(text) if len(t) >= config.min_length and not t.isdigit()]
        for term, count in Counter(found).items():
            if term not in asked:
                share[term] = share.get(term, 0.0) + count / len(found)
    if not share:
        return []
    frequency = document_frequency(list(share))
    scored = {
        term: value * inverse_document_frequency(frequency.get(term, 0), documents)
        for term, value in share.items()
        if frequency.get(term, 0) > 1  # a term of one passage only: a name, a typo
    }
    best = sorted(scored.items(), key=lambda pair: (-pair[1], pair[0]))[: config.terms]
    if not best:
        return []
    top = best[0][1]
    return [(term, score / top) for term, score in best]


@dataclass(frozen=True)
class Rm3Config:
    """RM3 pseudo-relevance feedback on BM25 (`PAPERCHAT_RETRIEVAL__RM3__*`): the
    relevance model of BM25's own best passages, searched with the question. Off by
    default (`terms` 0; docs/adaptation.md has the measurements)."""

    terms: int = field(
        default=0,
        metadata=described("expansion terms from the relevance model; 0 turns RM3 off", at_least=0),
    )
    passages: int = field(
        default=8,
        metadata=described("BM25's best passages read, at most one per paper", at_least=1),
    )
    original_weight: float = field(
        default=0.6,
        metadata=described(
            "the question's own share of the expanded query (RM3's lambda)", at_least=0.01
        ),
    )
    min_length: int = field(
        default=3, metadata=described("shortest stem taken as an expansion term", at_least=0)
    )

    def __post_init__(self) -> None:
        check_bounds(self)
        if self.original_weight > 1:
            raise ValueError("original_weight is a share: at most 1")


def relevance_model(
    passages: Sequence[tuple[str, float]],
    question_terms: Sequence[str],
    document_frequency: Callable[[Sequence[str]], Mapping[str, int]],
    config: Rm3Config,
) -> list[WeightedTerm]:
    """RM3's expansion terms for `passages` ((text, BM25 score), best first): each term's
    probability under the relevance model, the sum over the passages of its share of the
    passage's terms times the passage's share of the scores, for the `config.terms` most
    probable terms the question lacks, weighted against a question term's 1 as RM3
    interpolates them (`original_weight` to the question, the rest to these)."""
    asked = set(question_terms)
    total = sum(score for _, score in passages if score > 0)
    if not asked or total <= 0:
        return []
    probability: dict[str, float] = {}
    for text, score in passages:
        found = [t for t in terms(text) if len(t) >= config.min_length and not t.isdigit()]
        if not found or score <= 0:
            continue
        for term, count in Counter(found).items():
            if term not in asked:
                share = (score / total) * count / len(found)
                probability[term] = probability.get(term, 0.0) + share
    frequency = document_frequency(list(probability))
    kept = {t: p for t, p in probability.items() if frequency.get(t, 0) > 1}
    best = sorted(kept.items(), key=lambda pair: (-pair[1], pair[0]))[: config.terms]
    mass = sum(p for _, p in best)
    if mass <= 0:
        return []
    # The question's terms share `original_weight` equally; a term of its own weighs 1.
    scale = (1 - config.original_weight) / config.original_weight * len(asked)
    return [(term, scale * p / mass) for term, p in best]


@dataclass(frozen=True)
class DenseFeedbackConfig:
    """Pseudo-relevance feedback on the dense side (`PAPERCHAT_RETRIEVAL__DENSE_FEEDBACK__*`):
    the question's vector moved toward its best passages' and searched again."""

    # Off: over the full index 3 passages lift the development plain-language questions'
    # R@5 from 0.377 to 0.449 but not the held-out ones', and cost a PDF and an abstract
    # question their first place (docs/adaptation.md). Given to the questions in everyday
    # words alone (`layman_share` 0.8, the style's own), they keep the PDFs' first places
    # and lift the development R@5 as much, the held-out one still not (0.452 either way),
    # and a held-out abstract question read as in everyday words still loses its first
    # place (`python -m bench.quality.retrieval`, "dense feedback, layman only").
    passages: int = field(
        default=0,
        metadata=described(
            "best first-pass dense passages (one per paper) the question's vector moves "
            "toward; 0 turns dense feedback off",
            at_least=0,
        ),
    )
    weight: float = field(
        default=0.5,
        metadata=described(
            "the passages' mean vector's weight against the question's 1 (Rocchio's beta over "
            "alpha)",
            at_least=0,
        ),
    )
    layman_share: float = field(
        default=0.0,
        metadata=described(
            "only for a question in everyday words: one of more than "
            "`PAPERCHAT_RETRIEVAL__STYLE__SHORT_WORDS` words, with no typo or shorthand, whose "
            "papers' words hold less than this share of its term weight; 0 for every question",
            at_least=0,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)

    def applies(
        self, question: str, index: Frequencies, vocabulary: VocabularyConfig, style: StyleConfig
    ) -> bool:
        """Whether the question's vector is moved: when this is on, for a question in
        everyday words (`indexed_style` with `layman_share`), or for every one."""
        if not self.passages or not self.layman_share:
            return bool(self.passages)
        gate = replace(style, layman_share=self.layman_share)
        return indexed_style(question, index, vocabulary, gate) == "layman"


def moved_vector(question: np.ndarray, passages: Sequence[np.ndarray], weight: float) -> np.ndarray:
    """Rocchio's query: the unit question vector plus `weight` times the mean of the unit
    passage vectors, made unit length again; the question's own without passages."""
    own = _unit(np.asarray(question, dtype=np.float32))
    if not passages or weight <= 0:
        return own
    centre = np.mean([_unit(np.asarray(p, dtype=np.float32)) for p in passages], axis=0)
    return _unit(own + weight * centre)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
