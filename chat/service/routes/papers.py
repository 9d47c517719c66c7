"""One paper's record, and hybrid search with one result per paper."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from chat.rag.papers import MAX_SEARCH_RESULTS, paper_details, search_papers
from chat.service.routes.deps import CurrentUser, ServicesDep
from chat.service.routes.errors import errors

router = APIRouter(tags=["papers"])


class Paper(BaseModel):
    id: str
    title: str
    authors: str
    abstract: str
    categories: list[str]
    published: str | None
    has_fulltext: bool
    url: str | None
    pdf_url: str | None


class SearchHit(BaseModel):
    id: str
    title: str
    authors: str
    snippet: str
    score: float


class SearchResults(BaseModel):
    results: list[SearchHit]


@router.get("/api/papers/{arxiv_id:path}", responses=errors(401, 404, 422))
def get_paper(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> Paper:
    """`2203.12533`, `2203.12533v2`, `arXiv:2203.12533` or `hep-th/9901001`; 404 if unknown."""
    return Paper(**paper_details(services.index.catalog, arxiv_id))


@router.get("/api/search", responses=errors(401, 422))
def search(
    q: Annotated[str, Query(min_length=1, max_length=1000)],
    _user: CurrentUser,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=MAX_SEARCH_RESULTS)] = 10,
) -> SearchResults:
    hits = search_papers(services.index.retriever, q, limit)
    return SearchResults(results=[SearchHit(**vars(hit)) for hit in hits])
