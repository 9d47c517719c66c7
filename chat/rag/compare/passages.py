"""The passages of one paper that a comparison's cell is taken from.

The paper's passages best for the aspect's search text (the hybrid retrieval of
answers, within that one paper, more of its passages and tables than an answer
keeps), and its abstract, which says what the paper is about, after them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace

from chat.rag.retrieval.retriever import Retriever
from chat.rag.sources import Source
from ingest.index.filters import Filters
from ingest.index.records import arxiv_url

# Passages of the one paper a cell is chosen from, and of each of its kinds (tables,
# captions, footnotes).
PASSAGES = 8
PER_KIND = 2


def scoped(retriever: Retriever) -> Retriever:
    """`retriever` keeping up to `PASSAGES` passages of one paper."""
    config = dataclasses.replace(
        retriever.config,
        k=PASSAGES,
        per_paper=PASSAGES,
        leader_per_paper=PASSAGES,
        per_kind=PER_KIND,
    )
    return retriever.with_config(config)


def paper_passages(retriever: Retriever, paper_id: str, query: str) -> list[Source]:
    """The passages of `paper_id` for `query`, best first, then those of its abstract they
    leave out (the catalog's record of the paper is no passage of it)."""
    retrieved = retriever.retrieve(query, Filters(paper_ids=(paper_id,)))
    found = [s for s in retrieved.sources if s.kind != "record" and s.id == paper_id]
    held = {s.chunk_id for s in found}
    opening = [s for s in _abstract(retriever, paper_id, len(found) + 1) if s.chunk_id not in held]
    return found + opening


def is_abstract(source: Source) -> bool:
    """Whether a passage is of the paper's abstract: the catalog's, or its PDF's."""
    return source.kind == "abstract" or source.section.strip().lower() == "abstract"


def _abstract(retriever: Retriever, paper_id: str, n: int) -> list[Source]:
    """The passages of the paper's abstract: the catalog's, and its PDF's among its first."""
    catalog = retriever.catalog
    paper = catalog.get_paper(paper_id)
    if paper is None:
        return []
    first = [chunk_id for chunk_id, _ in retriever.opening(paper_id)]
    rows = catalog.chunk_rows(first)
    sources = [
        Source(
            n=n,
            id=paper_id,
            is_arxiv=paper.is_arxiv,
            title=paper.title,
            chunk_id=row.id,
            kind=row.kind,
            section=row.section,
            page=row.page_start or None,
            text=row.text,
            score=0.0,
            url=arxiv_url(paper_id) if paper.is_arxiv else "",
        )
        for row in (rows[i] for i in first if i in rows)
    ]
    return [replace(s, n=n + i) for i, s in enumerate(filter(is_abstract, sources))]
