"""Whether retrieval found anything that can ground an answer, and if not, why.

One score alone does not separate answerable from unanswerable questions
here, so the policy combines the best dense similarity with agreement
between the retrievers: the thresholds come from measuring the development
questions (docs/benchmarks.md). Two things come first: a question naming a
method that a paper of the index defines is answered; a question whose
weight lies almost all in everyday English words, not the papers' words
(`chat/rag/retrieval/vocabulary.py`), is refused however close some passage seems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chat.rag.bounds import check_bounds, described
from chat.rag.names.config import PLAIN_NAME_SHARE
from chat.rag.retrieval.fusion import lexical_margin

if TYPE_CHECKING:
    from chat.rag.retrieval.retrieved import Retrieved


NOTHING_FOUND = "nothing in the index matches the question"
NOT_SCHOLARLY = "the question is not about anything the indexed papers discuss"
NOT_CLOSE = "no passage of the indexed papers is close enough to the question"


@dataclass(frozen=True)
class Judgement:
    relevant: bool
    reason: str | None = None  # why not, when not


@dataclass(frozen=True)
class RelevancePolicy:
    """When the sources support an answer (`PAPERCHAT_RELEVANCE__*`); the thresholds were
    measured on the development questions (`bench/quality/retrieval.py`, docs/benchmarks.md)."""

    dense_alone: float = field(
        default=0.55,
        metadata=described("the cosine from which the best passage is relevant on its own"),
    )
    dense_agreeing: float = field(
        default=0.45,
        metadata=described("the same when both retrievers put the same paper first"),
    )
    agreement_depth: int = field(
        default=3,
        metadata=described(
            "the top papers of each retriever looked at for that agreement", at_least=1
        ),
    )
    lexical_margin: float = field(
        default=1.4,
        metadata=described(
            "the best passage is relevant too when BM25's best paper stands this far above "
            "the next (a specific name matched) and its cosine is at least `dense_with_margin`",
            at_least=0,
        ),
    )
    dense_with_margin: float = field(
        default=0.35, metadata=described("the cosine needed with that margin")
    )
    lexical_share: float = field(
        default=0.60,
        metadata=described(
            "the best passage is relevant too when BM25's best score is this large a share of "
            "the question's term weight (one passage holds most of its rare words: short "
            "queries, which the dense model reads poorly) and its cosine is at least "
            "`dense_with_share`",
            at_least=0,
        ),
    )
    dense_with_share: float = field(
        default=0.40, metadata=described("the cosine needed with that share")
    )
    long_question_terms: int = field(
        default=15,
        metadata=described(
            "a question of at least this many distinct terms describes an idea in plain "
            "words, and the passage that answers it sits lower in cosine than the paper's own "
            "words would",
            at_least=0,
        ),
    )
    dense_long: float = field(
        default=0.47, metadata=described("the cosine needed for such a long question")
    )
    scholarly_share: float = field(
        default=0.20,
        metadata=described(
            "below this share of its term weight in the papers' own words (terms far commoner "
            "in the index than in general English) a question is everyday talk, refused",
            at_least=0,
        ),
    )
    name_share: float = field(
        default=0.30,
        metadata=described(
            "a question is about a method the index defines, and answered, when the name "
            'holds at least this share of its term weight ("What does FiD stand for?"), not '
            'when a long question mentions one in passing ("... a 7B LLM ...")',
            at_least=0,
        ),
    )
    plain_name_share: float = field(
        default=PLAIN_NAME_SHARE,
        metadata=described(
            'the same for a defined name in capitals that spell an English word ("MARE", '
            '"VITA", but also "NBA" where a paper defines it): it counts only when it is '
            'nearly all the question, so that "Where to watch the NBA finals?" is still '
            "judged as everyday talk",
            at_least=0,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)

    def agreement(self, retrieved: Retrieved) -> bool:
        top_dense = retrieved.paper_ranking("dense")[: self.agreement_depth]
        top_lexical = retrieved.paper_ranking("lexical")[: self.agreement_depth]
        return bool(top_dense) and top_dense[0] in top_lexical

    def is_relevant(self, retrieved: Retrieved) -> bool:
        return self.judge(retrieved).relevant

    def judge(self, retrieved: Retrieved) -> Judgement:
        """Whether to answer, and when not, a short reason a user may read."""
        if not retrieved.sources:
            return Judgement(False, NOTHING_FOUND)
        if retrieved.sources[0].kind == "record":
            # A question about a paper's record is answered from the catalog's record.
            return Judgement(True)
        if retrieved.scoped_to or self._about_a_defined_name(retrieved):
            # A question about named papers is answered from them, whatever the scores;
            # so is one naming a method that a paper of the index defines.
            return Judgement(True)
        if retrieved.scholarly_share < self.scholarly_share:
            return Judgement(False, NOT_SCHOLARLY)
        if self._close_enough(retrieved):
            return Judgement(True)
        return Judgement(False, NOT_CLOSE)

    def _about_a_defined_name(self, retrieved: Retrieved) -> bool:
        names = retrieved.names
        for match in names.matches:
            if not match.definers:
                continue
            share = names.share(match, retrieved.question_idf)
            if share >= (self.name_share if match.marked else self.plain_name_share):
                return True
        return False

    def _close_enough(self, retrieved: Retrieved) -> bool:
        best = retrieved.best_dense
        if best >= self.dense_alone:
            return True
        if best >= self.dense_agreeing and self.agreement(retrieved):
            return True
        if best >= self.dense_with_share and retrieved.lexical_share >= self.lexical_share:
            return True
        if best >= self.dense_long and retrieved.question_terms >= self.long_question_terms:
            return True
        return best >= self.dense_with_margin and self._lexical_margin(retrieved)

    def _lexical_margin(self, retrieved: Retrieved) -> bool:
        hits = [(c.chunk_id, c.paper_id, c.lexical) for c in retrieved.ranked_by("lexical")]
        return lexical_margin(hits) >= self.lexical_margin
