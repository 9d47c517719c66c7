"""The retriever's rerankers: applied in turn, given the question and the candidates' text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pytest

from chat.rag.rerank.reranker import Passage, Passages, Query, Reranker
from chat.rag.retrieval.coverage import CoverageConfig, CoverageReranker
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.retriever import Retriever
from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(120)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


class Reversing:
    def rerank(
        self, query: Query, ranked: Sequence[Candidate], passages: Passages
    ) -> list[Candidate]:
        return list(reversed(ranked))


@dataclass
class Recording:
    """Keeps the order; records what it was given, as a model reranker would read it."""

    seen: list[tuple[Query, list[str], dict[str, Passage]]] = field(default_factory=list)

    def rerank(
        self, query: Query, ranked: Sequence[Candidate], passages: Passages
    ) -> list[Candidate]:
        self.seen.append((query, [c.chunk_id for c in ranked], dict(passages(ranked[:3]))))
        return list(ranked)


def _retriever(index: Wiring, rerankers: Sequence[Reranker] | None) -> Retriever:
    usual = index.retriever
    return Retriever(
        usual.catalog, usual.store, usual.lexical, usual.embedder, usual.config, rerankers
    )


def test_a_registered_reranker_reorders_the_candidates_and_the_sources(
    small_index: Wiring,
) -> None:
    fused = _retriever(small_index, []).retrieve(FID)

    reversed_ = _retriever(small_index, [Reversing()]).retrieve(FID)

    assert [c.chunk_id for c in reversed_.ranked] == [c.chunk_id for c in fused.ranked][::-1]
    assert reversed_.sources[0].chunk_id == fused.ranked[-1].chunk_id
    assert reversed_.sources[0].id != "2007.01282"
    assert fused.sources[0].id == "2007.01282"


def test_rerankers_apply_in_turn_each_to_the_last_ones_order(small_index: Wiring) -> None:
    recording = Recording()
    fused = _retriever(small_index, []).retrieve(FID)

    _retriever(small_index, [Reversing(), recording]).retrieve(FID)

    assert recording.seen[0][1] == [c.chunk_id for c in fused.ranked][::-1]


def test_a_reranker_reads_the_question_and_each_candidates_text_and_title(
    small_index: Wiring,
) -> None:
    recording = Recording()

    retrieved = _retriever(small_index, [recording]).retrieve(FID)

    query, order, passages = recording.seen[0]
    assert query == Query(FID, retrieved.question_idf)
    assert order == [c.chunk_id for c in retrieved.ranked]
    top = retrieved.sources[0]
    assert passages[top.chunk_id] == Passage(top.chunk_id, top.title, top.text)
    assert len(passages) == 3


def test_by_default_the_coverage_second_look_follows_the_config(small_index: Wiring) -> None:
    retriever = _retriever(small_index, None)
    other = replace(retriever.config, coverage=CoverageConfig(depth=5, weight=2.0))

    moved = retriever.with_config(other)

    assert retriever.rerankers == (CoverageReranker(retriever.config.coverage),)
    assert moved.rerankers == (CoverageReranker(CoverageConfig(depth=5, weight=2.0)),)


def test_given_rerankers_are_kept_with_other_settings(small_index: Wiring) -> None:
    reversing = Reversing()
    retriever = _retriever(small_index, [reversing])

    moved = retriever.with_config(replace(retriever.config, k=2))

    assert moved.rerankers == (reversing,)
    assert len(moved.retrieve(FID).sources) == 2
