"""Whether retrieval found anything that can ground an answer, and if not, why.

One score alone does not separate answerable from unanswerable questions
here, so the policy combines the best dense similarity with agreement
between the retrievers: the thresholds come from measuring the development
questions (see the README). Two things come first: a question naming a
method that a paper of the index defines is answered; a question whose
weight lies almost all in everyday English words, not the papers' words
(`chat/rag/retrieval/vocabulary.py`), is refused however close some passage seems.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chat.rag.bounds import at_least
from chat.rag.names.recognition import PLAIN_NAME_SHARE
from chat.rag.retrieval.fusion import lexical_margin

if TYPE_CHECKING:
    from chat.rag.retrieval.retriever import Retrieved


NOTHING_FOUND = "nothing in the index matches the question"
NOT_SCHOLARLY = "the question is not about anything the indexed papers discuss"
NOT_CLOSE = "no passage of the indexed papers is close enough to the question"


@dataclass(frozen=True)
class Judgement:
    relevant: bool
    reason: str | None = None  # why not, when not


@dataclass(frozen=True)
class RelevancePolicy:
    """Thresholds measured on the development questions (`bench/retrieval.py`, README)."""

    # Above this cosine the best passage is taken as relevant on its own.
    dense_alone: float = 0.55
    # Above this one it is relevant when both retrievers put the same paper first.
    dense_agreeing: float = 0.45
    # Papers of both retrievers' top few that must coincide to count as agreement.
    agreement_depth: int = 3
    # Or when BM25's best paper stands this far above the next (a specific name
    # matched), with at least this cosine.
    lexical_margin: float = 1.4
    dense_with_margin: float = 0.35
    # Or when the best BM25 score is this large a share of the question's term weight
    # (one passage holds most of its rare words: short queries, which the dense model
    # reads poorly), with at least this cosine.
    lexical_share: float = 0.60
    dense_with_share: float = 0.40
    # A question of at least this many distinct terms describes an idea in plain words;
    # the passage that answers it sits lower in cosine than the paper's own words would.
    long_question_terms: int = 15
    dense_long: float = 0.47
    # Below this share of the question's term weight in the papers' own words (terms far
    # commoner in the index than in general English), a question is everyday talk.
    scholarly_share: float = 0.20
    # A question is about a method the index defines when the name holds at least this
    # share of its term weight ("What does FiD stand for?"), not when a long question
    # mentions one in passing ("... a 7B LLM ...", "... on ImageNet").
    name_share: float = 0.30
    # A defined name in capitals that spell an English word ("MARE", "VITA", but also
    # "NBA" where a paper defines it) counts only when it is nearly all the question
    # ("what is MARE", "What does VITA stand for?"): "Where to watch the NBA finals?" is
    # still judged as everyday talk.
    plain_name_share: float = PLAIN_NAME_SHARE

    def __post_init__(self) -> None:
        at_least(self, 1, "agreement_depth")
        at_least(self, 0, "lexical_margin", "lexical_share", "long_question_terms")
        at_least(self, 0, "scholarly_share", "name_share", "plain_name_share")

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
