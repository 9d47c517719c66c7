"""Rerankers: second looks at the fused candidates, applied in order by the retriever.

A reranker is given the question (its text and the inverse document
frequency of each of its index terms) and the fused candidates, best first,
and returns them reordered. It reads the text of the candidates it looks at,
each with its paper's title, through the `Passages` lookup the retriever
hands it, so it needs no index of its own. `chat/rag/retrieval/coverage.py` is the
first: how much of the question each of the best candidates holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from chat.rag.retrieval.fusion import Candidate
from ingest.errors import PaperchatError


@dataclass(frozen=True)
class Query:
    """The question a ranking answers."""

    text: str
    # Each distinct index term of the question with its inverse document frequency.
    idf: Mapping[str, float]
    # The index terms of names whose case the question keeps and whose case carries
    # meaning, each with the name as printed: "fid" -> "FiD", which "FID" is not.
    cased: Mapping[str, str] = field(default_factory=dict)
    # The index terms of the names that steer the search, each with their long forms:
    # "fid" -> ("Fusion-in-Decoder",), which a passage may write instead of the name.
    long_forms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Passage:
    chunk_id: str
    title: str  # its paper's, "" when the catalog has no such paper
    text: str  # "" when the catalog does not hold the chunk


# The passage of each of the given candidates, by chunk id.
Passages = Callable[[Sequence[Candidate]], Mapping[str, Passage]]


class RerankerUnavailable(PaperchatError):
    """A reranker could not look (its server failed or timed out): keep the order it was given."""


class Reranker(Protocol):
    def rerank(
        self, query: Query, ranked: Sequence[Candidate], passages: Passages
    ) -> list[Candidate]:
        """The candidates of `ranked` (best first), reordered and possibly rescored;
        raises `RerankerUnavailable` when it cannot look this time."""
        ...
