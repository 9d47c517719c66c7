"""What one retrieval found: the sources handed to the answerer, every fused candidate,
and what was learnt of the question on the way (its terms' weights, names, scholarly words)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from chat.rag.names.matches import Recognised
from chat.rag.retrieval.fusion import Candidate, lexical_share
from chat.rag.retrieval.vocabulary import weight_share
from chat.rag.sources import Source


@dataclass(frozen=True)
class Retrieved:
    sources: tuple[Source, ...]
    ranked: tuple[Candidate, ...]  # every fused candidate, best first, before the per-paper cap
    scoped_to: tuple[str, ...]  # papers named in the question or by the caller
    timings: dict[str, float]
    # Each distinct index term of the question with its inverse document frequency.
    question_idf: Mapping[str, float] = field(default_factory=dict)
    # The names recognised in the question, and its terms that are the papers' words
    # rather than everyday English (`chat/rag/retrieval/vocabulary.py`).
    names: Recognised = field(default_factory=Recognised)
    scholarly: tuple[str, ...] = ()

    @property
    def scholarly_share(self) -> float:
        """The share of the question's term weight in scholarly terms."""
        return weight_share(self.question_idf, self.scholarly)

    # What could not run this time (a reranker whose server failed): the ranking is without it.
    degraded: tuple[str, ...] = ()

    @property
    def question_terms(self) -> int:
        return len(self.question_idf)

    @property
    def term_weight(self) -> float:
        """The question's summed inverse document frequencies."""
        return sum(self.question_idf.values())

    @property
    def lexical_share(self) -> float:
        """`chat.rag.retrieval.fusion.lexical_share` of this retrieval."""
        return lexical_share(self.best_lexical, self.term_weight)

    @property
    def best_dense(self) -> float:
        return max((c.dense for c in self.ranked), default=0.0)

    @property
    def best_lexical(self) -> float:
        return max((c.lexical for c in self.ranked), default=0.0)

    def paper_ranking(self, retriever: str = "hybrid") -> list[str]:
        """Distinct papers in the order of `ranked_by(retriever)`."""
        return list(dict.fromkeys(c.paper_id for c in self.ranked_by(retriever)))

    def ranked_by(self, retriever: str) -> list[Candidate]:
        """The candidates as "dense" or "lexical" alone ranked them, or fused ("hybrid")."""
        if retriever == "hybrid":
            return list(self.ranked)
        dense = retriever == "dense"
        found = [(c.dense_rank if dense else c.lexical_rank, c) for c in self.ranked]
        return [c for rank, c in sorted(found, key=lambda pair: pair[0] or 0) if rank is not None]
