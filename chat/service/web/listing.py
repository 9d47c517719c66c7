"""Search results as the search page lists them: each with its date and categories from the
catalog."""

from __future__ import annotations

from dataclasses import dataclass

from chat.library.papers import search_papers
from chat.library.tex import readable_tex
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from ingest.index.authors import written_names


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


def search_listing(
    retriever: Retriever, query: str, limit: int = 10, policy: RelevancePolicy | None = None
) -> list[Listed]:
    """Hybrid search with one result per paper, best first, with each paper's date and
    categories; none when no paper passes `policy`, the answers' relevance bar."""
    listed = []
    for hit in search_papers(retriever, query, limit, policy=policy):
        paper = retriever.catalog.get_paper(hit.id)
        published = (paper.published or paper.updated or None) if paper else None
        categories = list(paper.categories) if paper else []
        names = [readable_tex(name) for name in written_names(hit.authors)]
        listed.append(
            Listed(
                hit.id, hit.title, hit.authors, hit.snippet, hit.score, published, categories, names
            )
        )
    return listed
