"""Papers as the dock and the API show them: one paper's record, and search by paper."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from chat.rag.retrieval import Retriever
from chat.rag.sources import Source
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.records import Paper, arxiv_pdf_url, arxiv_url, normalise_paper_id

MAX_SEARCH_RESULTS = 50


class PaperNotFound(PaperchatError, LookupError):
    """No paper with that id in the index."""


def paper_details(catalog: Catalog, value: str) -> dict[str, Any]:
    paper_id = normalise_paper_id(value)
    row = catalog.paper_row(paper_id)
    if row is None:
        raise PaperNotFound(f"no paper {value!r} in the index")
    paper = row.paper
    return {
        "id": paper.id,
        "title": paper.title,
        "authors": paper.authors,
        "abstract": paper.abstract,
        "categories": list(paper.categories),
        "published": paper.published or None,
        "updated": paper.updated or None,
        "has_fulltext": row.has_fulltext,
        "field_sources": row.field_sources,
        "url": arxiv_url(paper.id) if paper.is_arxiv else None,
        "pdf_url": arxiv_pdf_url(paper.id) if paper.is_arxiv else None,
    }


@dataclass(frozen=True)
class SearchResult:
    id: str
    title: str
    authors: str
    snippet: str
    score: float


def search_papers(
    retriever: Retriever, query: str, limit: int = 10, filters: Filters | None = None
) -> list[SearchResult]:
    """Hybrid search with one result per paper, best first."""
    limit = max(1, min(limit, MAX_SEARCH_RESULTS))
    config = dataclasses.replace(retriever.config, k=limit, per_paper=1, leader_per_paper=1)
    retrieved = retriever.with_config(config).retrieve(query, filters or Filters())
    results = []
    for source in retrieved.sources:
        paper = retriever.catalog.get_paper(source.id)
        authors = paper.authors if paper is not None else ""
        results.append(
            SearchResult(
                source.id, source.title, authors, result_snippet(source, paper), source.score
            )
        )
    return results


def result_snippet(source: Source, paper: Paper | None, length: int = 240) -> str:
    """The matched passage; for a hit on a PDF's first page (title, authors, marks and
    all), the paper's abstract instead, when it has one."""
    if source.kind != "fulltext" or source.page != 1 or paper is None or not paper.abstract:
        return source.snippet(length)
    whole = dataclasses.replace(source, text=paper.abstract)
    return whole.snippet(length)
