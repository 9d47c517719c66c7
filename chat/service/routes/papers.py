"""One paper's record, and hybrid search with one result per paper."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Query, Request, status
from pydantic import BaseModel

from chat.library.authors import author_filter
from chat.library.citations import paper_citations, paper_references
from chat.library.papers import (
    MAX_SEARCH_MATCHES,
    MAX_SEARCH_RESULTS,
    SearchResult,
    SearchSort,
    page_path,
    paged_search,
    paper_details,
)
from chat.library.related import related_papers
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from chat.service.access.ratelimit import over_limit
from chat.service.routes.deps import (
    AuthorName,
    Category,
    CurrentUser,
    IsoDate,
    ServicesDep,
    check_date_range,
    client_address,
)
from chat.service.routes.errors import errors
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.paths import paper_path

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
    published: str | None = None  # the first submission, as `Paper.published`
    categories: list[str] = []


class SearchResults(BaseModel):
    results: list[SearchHit]
    # True when the query passes the answers' relevance bar with no paper: "No papers match".
    no_match: bool = False
    no_match_reason: str | None = None
    total: int = 0  # the papers on every page of this search (at most MAX_SEARCH_MATCHES)
    page: int = 1
    limit: int = 10


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
    path: str  # its page on this site, canonical and escaped: `/papers/<id>-<title-slug>`
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
    catalog = services.index.catalog
    return related_at_pages(catalog, related_papers(catalog, services.index.store, arxiv_id))


def related_at_pages(catalog: Catalog, found: list[dict[str, Any]]) -> Related:
    """Related papers (`chat/library/related.py`), each with its canonical page path."""
    return Related(related=[RelatedPaper(**paper, path=_path(catalog, paper)) for paper in found])


def _path(catalog: Catalog, paper: dict[str, Any]) -> str:
    """The canonical page path of a paper the library lists by id and title."""
    record = catalog.get_paper(str(paper["id"]))
    return page_path(record) if record else quote(paper_path(str(paper["id"]), paper["title"]))


@router.get("/api/papers/{arxiv_id:path}", responses=errors(401, 404, 422))
def get_paper(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> Paper:
    """`2203.12533`, `2203.12533v2`, `arXiv:2203.12533` or `hep-th/9901001`; 404 if unknown."""
    return Paper(**paper_details(services.index.catalog, arxiv_id))


@router.get("/api/search", responses=errors(401, 404, 422, 429))
def search(
    q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS)],
    request: Request,
    user: CurrentUser,
    services: ServicesDep,
    category: Annotated[list[Category], Query(max_length=20)] = [],  # noqa: B006
    published_from: Annotated[IsoDate | None, Query(alias="from")] = None,
    published_to: Annotated[IsoDate | None, Query(alias="to")] = None,
    author: AuthorName | None = None,
    sort: SearchSort = "relevance",
    page: Annotated[int, Query(ge=1, le=MAX_SEARCH_MATCHES)] = 1,
    limit: Annotated[int, Query(ge=1, le=MAX_SEARCH_RESULTS)] = 10,
) -> SearchResults:
    """Papers for `q`, one result each, within the filters: categories (`category`, any of
    them), the first submission's dates (`from`, `to`, inclusive; none when `from` is after
    `to`) and an author (404 for an
    unknown one); best match first or (`sort=newest`) latest first, `limit` a page, with
    the `total` over every page. Limited per user and per client address
    (`PAPERCHAT_SEARCH_RATE_LIMIT`), 429 beyond. Empty, with `no_match` and its reason, when
    no paper passes the answers' relevance bar."""
    for key in (f"search:user:{user.id}", f"search:{client_address(request)}"):
        decision = services.search_limiter.hit(key)
        if not decision.allowed:
            raise HTTPException(
                status.HTTP_429_TOO_MANY_REQUESTS,
                over_limit("searches", services.settings.search_rate_limit, decision),
                headers={"Retry-After": str(decision.retry_after_s)},
            )
    try:
        check_date_range(published_from, published_to)
    except ValueError as e:  # an empty range: no paper, said so
        return SearchResults(
            results=[], no_match=True, no_match_reason=f"{e}", page=page, limit=limit
        )
    catalog = services.index.catalog
    filters = Filters(
        categories=tuple(category),
        published_from=published_from or "",
        published_to=published_to or "",
        author=author or "",
    )
    found = paged_search(
        services.index.retriever,
        q,
        author_filter(catalog, filters),
        sort,
        page,
        limit,
        policy=services.settings.relevance,
    )
    return SearchResults(
        results=[_hit(catalog, hit) for hit in found.results],
        no_match=not found.total,
        no_match_reason=found.no_match_reason,
        total=found.total,
        page=page,
        limit=limit,
    )


def _hit(catalog: Catalog, hit: SearchResult) -> SearchHit:
    paper = catalog.get_paper(hit.id)
    return SearchHit(
        **vars(hit),
        published=(paper.published or None) if paper else None,
        categories=list(paper.categories) if paper else [],
    )
