"""Passages for a query, without an answer: for callers who build their own chains.

The same hybrid retrieval answers use (fusion, the second look, the cap of
passages per paper), `k` passages best first, each with its paper's arXiv
metadata. No relevance judgement is made: the scores are there to judge by.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from chat.rag.retrieval.retriever import Retriever
from ingest.index.filters import Filters

MAX_PASSAGES = 50


@dataclass(frozen=True)
class RetrievedPassage:
    """A passage as `POST /api/retrieve` sends it, defined here only: the route names it
    `Passage` in its schema, the LangChain retriever reads it."""

    chunk_id: str
    paper_id: str
    title: str
    authors: str
    categories: tuple[str, ...]
    published: str | None  # ISO date of the first version
    kind: str  # "abstract", "fulltext", or a PDF's "caption", "table", "footnote"
    section: str
    page: int | None  # first page of the passage; None for an abstract
    text: str
    score: float
    url: str
    citation: str  # how an answer cites it: `[arXiv:2203.12533]` or `[doc:<id>]`


def retrieve_passages(
    retriever: Retriever, query: str, k: int = 8, filters: Filters | None = None
) -> list[RetrievedPassage]:
    """The `k` best passages for `query` within `filters` (1 to `MAX_PASSAGES`)."""
    if not 1 <= k <= MAX_PASSAGES:
        raise ValueError(f"k must be between 1 and {MAX_PASSAGES}, not {k}")
    config = dataclasses.replace(retriever.config, k=k)
    retrieved = retriever.with_config(config).retrieve(query, filters or Filters())
    passages = []
    for source in retrieved.sources:
        paper = retriever.catalog.get_paper(source.id)
        passages.append(
            RetrievedPassage(
                chunk_id=source.chunk_id,
                paper_id=source.id,
                title=source.title,
                authors=paper.authors if paper is not None else "",
                categories=paper.categories if paper is not None else (),
                published=(paper.published or None) if paper is not None else None,
                kind=source.kind,
                section=source.section,
                page=source.page,
                text=source.text,
                score=round(source.score, 4),
                url=source.url,
                citation=source.citation,
            )
        )
    return passages
