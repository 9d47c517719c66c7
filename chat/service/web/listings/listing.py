"""Search results as the search page lists them: each with its date and categories from the
catalog."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from chat.library.papers import SearchSort, page_path, paged_search
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from ingest.index.filters import Filters
from ingest.index.names.people import written_names
from ingest.index.tex import readable_tex


@dataclass(frozen=True)
class Listed:
    id: str
    title: str
    authors: str
    snippet: str
    score: float
    published: str | None
    categories: list[str]
    author_names: list[str]  # each a link to the author's page
    href: str  # the paper page's canonical path


@dataclass(frozen=True)
class Listing:
    """One page of a search's results, and how many there are on every page."""

    results: list[Listed]
    total: int


def search_listing(
    retriever: Retriever,
    query: str,
    limit: int = 10,
    policy: RelevancePolicy | None = None,
    filters: Filters | None = None,
    sort: SearchSort = "relevance",
    page: int = 1,
) -> Listing:
    """Page `page` of a hybrid search within `filters`, one result per paper, best first or
    newest first, with each paper's date and categories; none when no paper passes
    `policy`, the answers' relevance bar."""
    found = paged_search(retriever, query, filters, sort, page, limit, policy)
    listed = []
    for hit in found.results:
        paper = retriever.catalog.get_paper(hit.id)
        published = (paper.published or paper.updated or None) if paper else None
        categories = list(paper.categories) if paper else []
        names = [readable_tex(name) for name in written_names(hit.authors)]
        href = page_path(paper) if paper else quote(f"/papers/{hit.id}")
        listed.append(
            Listed(
                hit.id,
                hit.title,
                hit.authors,
                hit.snippet,
                hit.score,
                published,
                categories,
                names,
                href,
            )
        )
    return Listing(listed, found.total)
