"""Who cites whom among the library's papers, as the API, the MCP tools and the paper page
show it: a paper's references (each with the library's paper it names, or None) and the
library's papers that cite it (`ingest/index/names/citations.py` resolves them)."""

from __future__ import annotations

from typing import Any

from chat.library.papers import PaperNotFound
from ingest.index.catalog import Catalog
from ingest.index.records import normalise_paper_id


def known_paper_id(catalog: Catalog, value: str) -> str:
    """The paper's id without its version; PaperNotFound when the library lacks it."""
    paper_id = normalise_paper_id(value)
    if catalog.get_paper(paper_id) is None:
        raise PaperNotFound(f"no paper {value!r} in the index")
    return paper_id


def paper_references(catalog: Catalog, value: str) -> list[dict[str, Any]]:
    """The references the paper's PDF prints, in order; [] for a paper without a PDF."""
    return [
        {
            "title": stored.reference.title,
            "authors": stored.reference.authors,
            "year": stored.reference.year,
            "venue": stored.reference.venue or None,
            "arxiv_id": stored.reference.arxiv_id or None,
            "doi": stored.reference.doi or None,
            "resolved_id": stored.resolved_id,
        }
        for stored in catalog.references_of(known_paper_id(catalog, value))
    ]


def paper_citations(catalog: Catalog, value: str) -> list[dict[str, Any]]:
    """The library's papers whose references name this one."""
    citing = catalog.citing_papers(known_paper_id(catalog, value))
    return [{"id": paper.id, "title": paper.title} for paper in citing]
