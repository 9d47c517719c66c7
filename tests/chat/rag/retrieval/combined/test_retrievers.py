"""Merging several indexes' rankings: each index's best passage stays near the top whatever
the scale of its scores, and a scope naming papers names each index's own."""

from __future__ import annotations

from typing import cast

from chat.rag.retrieval.combined.retrievers import Part, merged_order
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.retriever import Retriever
from ingest.index.filters import Filters

# A part is told its scope without being searched: no index is opened.
NO_RETRIEVER = cast(Retriever, None)
LIBRARY = Part(NO_RETRIEVER)
UPLOAD = Part(NO_RETRIEVER, ("doc-a",))


def _ranked(paper: str, *scores: float) -> list[Candidate]:
    return [Candidate(f"{paper}#{n}", paper, score) for n, score in enumerate(scores)]


def test_each_rankings_best_passage_stands_near_the_top_whatever_its_scale() -> None:
    library = _ranked("2007.01282", 31.0, 30.5, 30.0, 29.5)
    upload = _ranked("doc-a", 0.61, 0.2)

    merged = [c.chunk_id for _, c in merged_order([library, upload], rrf_k=10.0)]

    assert set(merged[:2]) == {"2007.01282#0", "doc-a#0"}
    assert merged[-1] == "doc-a#1"
    assert len(merged) == 6


def test_a_scope_naming_papers_names_each_indexs_own() -> None:
    named = Filters(paper_ids=("2007.01282", "doc-a"), categories=("cs.CL",))
    library_only = Filters(paper_ids=("2007.01282",))
    elsewhere = {"doc-a"}

    assert LIBRARY.filters(named, elsewhere) == Filters(("2007.01282",), ("cs.CL",))
    assert UPLOAD.filters(named, set()) == Filters(paper_ids=("doc-a",))
    assert UPLOAD.filters(library_only, set()) is None
    assert LIBRARY.filters(Filters(paper_ids=("doc-a",)), elsewhere) is None


def test_a_scope_naming_no_paper_searches_every_index_the_library_with_its_filters() -> None:
    by_author = Filters(author="Gautier Izacard", author_papers=("2007.01282",))

    assert LIBRARY.filters(by_author, {"doc-a"}) == by_author
    assert UPLOAD.filters(by_author, set()) == Filters(paper_ids=("doc-a",))
