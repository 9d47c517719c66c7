"""One paper's record, and hybrid search with one result per paper."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, status
from pydantic import BaseModel

from chat.library.citations import paper_citations, paper_references
from chat.library.papers import MAX_SEARCH_RESULTS, find_papers, paper_details
from chat.library.related import related_papers
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from chat.service.access.ratelimit import over_limit
from chat.service.routes.deps import CurrentUser, ServicesDep, client_address
from chat.service.routes.errors import errors

router = APIRouter(tags=["papers"])


class Paper(BaseModel):
    id: str
    title: str
    authors: str
    abstract: str
    categories: list[str]
    # The first submission: an ISO day, or `YYYY-MM` when only its month is known.
    published: str | None
    updated: str | None  # the last version, or the record's last change
    comments: str | None  # the authors' comments ("Accepted to ACL 2019")
    journal_ref: str | None  # where it appeared, as the record says
    doi: str | None
    has_fulltext: bool
    field_sources: dict[str, str]  # per field: "record" (metadata, arXiv) or "pdf" (page 1)
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
    # True when the query passes the answers' relevance bar with no paper: "No papers match".
    no_match: bool = False
    no_match_reason: str | None = None


class CitedWork(BaseModel):
    """One entry of a paper's reference list; null where the entry does not say."""

    title: str
    authors: str  # names separated by ", ", as printed
    year: int | None
    venue: str | None
    arxiv_id: str | None
    doi: str | None
    resolved_id: str | None  # the library's paper the entry names; null when not in it


class References(BaseModel):
    references: list[CitedWork]


class CitingPaper(BaseModel):
    id: str
    title: str


class Citations(BaseModel):
    citations: list[CitingPaper]


# Declared before `get_paper`, whose `{arxiv_id:path}` would take these paths too.
@router.get("/api/papers/{arxiv_id:path}/references", responses=errors(401, 404, 422))
def get_references(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> References:
    """The references the paper's PDF prints, in order, each with the library's paper it
    names; an empty list for a paper without a PDF; 404 if unknown."""
    found = paper_references(services.index.catalog, arxiv_id)
    return References(references=[CitedWork(**reference) for reference in found])


@router.get("/api/papers/{arxiv_id:path}/citations", responses=errors(401, 404, 422))
def get_citations(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> Citations:
    """The library's papers whose references name this one; 404 if unknown."""
    found = paper_citations(services.index.catalog, arxiv_id)
    return Citations(citations=[CitingPaper(**paper) for paper in found])


class RelatedPaper(BaseModel):
    id: str
    title: str
    # Why, strongest link first: "cited by it", "cites it", "cited together with it by 2
    # papers", "cites 4 of the same papers", "similar abstract".
    reasons: list[str]


class Related(BaseModel):
    related: list[RelatedPaper]


@router.get("/api/papers/{arxiv_id:path}/related", responses=errors(401, 404, 422))
def get_related(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> Related:
    """At most 10 of the library's papers related to this one, the most related first, each
    with its reasons: citations either way, co-citation, shared references, a similar
    abstract (an abstract-only paper's come from the last); 404 if unknown."""
    found = related_papers(services.index.catalog, services.index.store, arxiv_id)
    return Related(related=[RelatedPaper(**paper) for paper in found])


@router.get("/api/papers/{arxiv_id:path}", responses=errors(401, 404, 422))
def get_paper(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> Paper:
    """`2203.12533`, `2203.12533v2`, `arXiv:2203.12533` or `hep-th/9901001`; 404 if unknown."""
    return Paper(**paper_details(services.index.catalog, arxiv_id))


@router.get("/api/search", responses=errors(401, 422, 429))
def search(
    q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS)],
    request: Request,
    user: CurrentUser,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=MAX_SEARCH_RESULTS)] = 10,
) -> SearchResults:
    """Limited per user and per client address (`PAPERCHAT_SEARCH_RATE_LIMIT`), 429 beyond.
    Empty, with `no_match` and its reason, when no paper passes the answers' relevance bar."""
    for key in (f"search:user:{user.id}", f"search:{client_address(request)}"):
        decision = services.search_limiter.hit(key)
        if not decision.allowed:
            raise HTTPException(
                status.HTTP_429_TOO_MANY_REQUESTS,
                over_limit("searches", services.settings.search_rate_limit, decision),
                headers={"Retry-After": str(decision.retry_after_s)},
            )
    found = find_papers(services.index.retriever, q, limit, policy=services.settings.relevance)
    return SearchResults(
        results=[SearchHit(**vars(hit)) for hit in found.results],
        no_match=not found.results,
        no_match_reason=found.no_match_reason,
    )
