"""The web pages (search, one paper), the dock's script and static files, and the dock's
view of the browser session.

The pages are public and rendered on the server, every paper field escaped;
the dock (`/dock.js`) talks to the API from the page that loaded it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

from anyio import to_thread
from fastapi import APIRouter, Header, Query, Request, Response, status
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel

from chat.library.authors import AuthorNotFound, author_filter
from chat.library.citations import paper_citations, paper_references
from chat.library.papers import (
    MAX_SEARCH_MATCHES,
    PaperNotFound,
    page_paper_id,
    page_paths,
    paper_details,
)
from chat.library.related import related_papers
from chat.service.access.ratelimit import hit_async
from chat.service.routes.deps import Me, ServicesDep, SessionDep, client_address, cookie_session
from chat.service.web.address import site_address
from chat.service.web.assets import Asset, AssetNotFound, static_asset
from chat.service.web.discovery.unapi import coins_of
from chat.service.web.listings.listing import Listing, search_listing
from chat.service.web.listings.search_form import SearchForm
from chat.service.web.markdown import (
    MARKDOWN_SUFFIX,
    VARY_ACCEPT,
    markdown_response,
    paper_markdown,
    search_markdown,
    wants_markdown,
)
from chat.service.web.papers.metadata import paper_metadata
from chat.service.web.papers.pdfpages import PdfInfo, PdfUnavailable, ReaderBusy
from chat.service.web.rendering import render_page
from chat.service.web.shared_pages import PaperPagesDep, SharedPagesDep
from ingest.index.filters import Filters
from ingest.index.names.people import written_names
from ingest.index.paths import paper_path
from ingest.index.tex import readable_paragraphs, readable_tex

router = APIRouter(tags=["dock"])

SEARCH_PAGE_RESULTS = 20
SITE_NAME = "paperchat"


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def search_page(
    request: Request,
    services: ServicesDep,
    kept: SharedPagesDep,
    q: Annotated[str, Query()] = "",
    category: Annotated[str, Query(max_length=32)] = "",
    published_from: Annotated[str, Query(alias="from", max_length=10)] = "",
    published_to: Annotated[str, Query(alias="to", max_length=10)] = "",
    author: Annotated[str, Query()] = "",
    sort: Annotated[str, Query()] = "relevance",
    page: Annotated[int, Query(ge=1, le=MAX_SEARCH_MATCHES)] = 1,
    accept: Annotated[str, Header()] = "",
) -> Response:
    """Search with filters (category, first submission from/to, author), a sort (relevance,
    newest) and pages. Public, so searches are limited per client address
    (`PAPERCHAT_SEARCH_RATE_LIMIT`). As Markdown with `Accept: text/markdown`. A refused
    search is answered on the event loop, with no worker thread: a client that keeps
    asking past its limit costs the others as little as it can."""
    search = SearchForm.read(q, category, published_from, published_to, author, sort, page)
    papers = await kept.get(("paper count",), services.index.catalog.paper_count)
    if search.query:
        key = f"search:{client_address(request)}"
        decision = await hit_async(services.search_limiter, key)
        if not decision.allowed:
            wait = decision.retry_after_s
            response = render_page(
                "search.html", 429, query=search.query, search=search, results=[], total=0,
                papers=papers, busy=wait,
            )  # fmt: skip
            response.headers["Retry-After"] = str(wait)
            return response
    answer = partial(_search_answer, request, services, search, papers, accept)
    return await to_thread.run_sync(answer)


def _search_answer(
    request: Request, services: ServicesDep, search: SearchForm, papers: int, accept: str
) -> Response:
    """The search page for `search`, HTML or Markdown (in a worker thread: it searches)."""
    listing = _listing(services, search) if search.query else Listing([], 0)
    if wants_markdown(accept):
        base = site_address(request, services.settings)
        return markdown_response(search_markdown(search, listing, papers, base))
    response = render_page(
        "search.html",
        query=search.query,
        search=search,
        results=listing.results,
        total=listing.total,
        papers=papers,
        pages=search.pages(listing.total, SEARCH_PAGE_RESULTS),
        coins=coins_of(request, services),
    )
    response.headers.update(VARY_ACCEPT)
    return response


def _listing(services: ServicesDep, search: SearchForm) -> Listing:
    """The page of results the form asks for; none for an author not in the index, or for a
    page past the most results a search lists (asked for nothing)."""
    if (search.page - 1) * SEARCH_PAGE_RESULTS >= MAX_SEARCH_MATCHES:
        return Listing([], 0)
    filters = Filters(
        categories=(search.category,) if search.category else (),
        published_from=search.published_from,
        published_to=search.published_to,
        author=search.author,
    )
    try:
        filters = author_filter(services.index.catalog, filters)
    except AuthorNotFound:
        return Listing([], 0)
    retriever, policy = services.index.retriever, services.settings.relevance
    return search_listing(
        retriever, search.query, SEARCH_PAGE_RESULTS, policy, filters, search.sort, search.page
    )


@router.get("/papers/{arxiv_id:path}", response_class=HTMLResponse, include_in_schema=False)
async def paper_page(
    arxiv_id: str,
    request: Request,
    services: ServicesDep,
    kept: PaperPagesDep,
    accept: Annotated[str, Header()] = "",
) -> Response:
    """At its canonical path, `/papers/<id>-<title-slug>`; any other form of its id (a bare
    id, a version, `arXiv:`, another slug) redirects there (308). As Markdown with
    `Accept: text/markdown` or a `.md` suffix. Made once for every reader while the catalog
    stays as it is (a paper of thousands of authors takes a second to write)."""
    as_markdown = arxiv_id.endswith(MARKDOWN_SUFFIX)
    wanted = arxiv_id.removesuffix(MARKDOWN_SUFFIX) if as_markdown else arxiv_id
    markdown = as_markdown or wants_markdown(accept)
    base = site_address(request, services.settings)
    paper_id = page_paper_id(wanted)
    page = await kept.get(
        (paper_id, base, markdown),
        partial(_written_page, services, paper_id, base, markdown),
        keep=lambda written: written is None or written.whole,
    )
    if page is None:
        response = render_page("not_found.html", 404, wanted=wanted, query=wanted)
        response.headers.update(VARY_ACCEPT)
        return response
    if not as_markdown and f"/papers/{arxiv_id}" != page.canonical:
        return _moved(page.canonical, request)
    return Response(page.body, media_type=page.media_type, headers=page.headers)


@dataclass(frozen=True)
class _Written:
    canonical: str
    body: bytes
    media_type: str
    headers: dict[str, str]
    whole: bool  # False: written while its PDF's reader was busy, not to be kept


def _written_page(
    services: ServicesDep, paper_id: str, base: str, markdown: bool
) -> _Written | None:
    """The paper's page, HTML or Markdown, as every reader gets it; None for no such paper."""
    try:
        paper = paper_details(services.index.catalog, paper_id)
    except PaperNotFound:
        return None
    canonical = paper_path(paper["id"], paper["title"], paper["url"] is not None)
    page = _paper_context(services, paper)
    if markdown:
        response: Response = markdown_response(paper_markdown(page, base))
    else:
        response = render_page(
            "paper.html",
            **page,
            canonical_url=f"{base}{quote(canonical)}",
            markdown_url=f"{quote(canonical)}{MARKDOWN_SUFFIX}",
            metadata=paper_metadata(paper, page["authors"], f"{base}{quote(canonical)}", SITE_NAME),
        )
        response.headers.update(VARY_ACCEPT)
    headers = {k: v for k, v in response.headers.items() if k.lower() not in _OWN_HEADERS}
    read = page["reader"] is not None or not paper["has_fulltext"] or markdown
    whole = read and page["discussions"] is not None
    return _Written(canonical, bytes(response.body), response.media_type or "", headers, whole)


# What a response works out for itself from its body.
_OWN_HEADERS = frozenset({"content-length", "content-type"})


def _moved(path: str, request: Request) -> RedirectResponse:
    """308 to `path`, with the request's query string (a reader's `?chunk=`)."""
    query = request.url.query
    location = quote(path) + (f"?{query}" if query else "")
    return RedirectResponse(location, status.HTTP_308_PERMANENT_REDIRECT, headers=VARY_ACCEPT)


def _paper_context(services: ServicesDep, paper: dict[str, Any]) -> dict[str, Any]:
    """What the paper page shows, in HTML or Markdown; every paper it links to with its
    canonical path (`href`)."""
    catalog = services.index.catalog
    references = [_shown(r) for r in paper_references(catalog, paper["id"])]
    citations = paper_citations(catalog, paper["id"])
    related = related_papers(catalog, services.index.store, paper["id"])
    linked = [r["resolved_id"] for r in references if r["resolved_id"]]
    paths = page_paths(catalog, [*linked, *(c["id"] for c in citations + related)])
    return {
        "paper": paper,
        "paper_id": paper["id"],
        "title": readable_tex(paper["title"]),
        "authors": [readable_tex(name) for name in written_names(paper["authors"])],
        "abstract": readable_paragraphs(paper["abstract"]),
        "from_pdf": [name for name, origin in paper["field_sources"].items() if origin == "pdf"],
        "reader": _reader(services, paper["id"]) if paper["has_fulltext"] else None,
        "references": [{**r, "href": paths.get(r["resolved_id"] or "")} for r in references],
        "citations": [{**c, "href": paths[c["id"]]} for c in citations],
        "related": [
            {**r, "title": readable_tex(r["title"]), "href": paths[r["id"]]} for r in related
        ],
        "discussions": _discussions(services, paper["id"]) if citations else [],
    }


def _discussions(services: ServicesDep, paper_id: str) -> list[dict[str, Any]] | None:
    """The library's papers whose PDFs cite the paper, newest first, each with its citing
    sentences and the page of this paper each speaks of; None while the reader is too busy
    to read them (the page is then written without them and not kept)."""
    try:
        found = services.annotations.discussions(paper_id, _uncounted)
    except ReaderBusy:
        return None
    paths = page_paths(services.index.catalog, [d.paper_id for d in found])
    papers: dict[str, dict[str, Any]] = {}
    for said in found:
        paper = papers.setdefault(
            said.paper_id,
            {
                "title": said.title,
                "year": said.published[:4],
                "href": paths.get(said.paper_id),
                "reader_url": said.reader_url,
                "sentences": [],
            },
        )
        paper["sentences"].append(said.model_dump(include={"sentence", "page", "placed_on"}))
    return list(papers.values())


def _uncounted() -> None:
    """Written once for every reader while the catalog stays as it is: no client's render."""


# A reference's authors as the page lists them: the first few, then "et al.".
_SHOWN_AUTHORS = 3


def _shown(reference: dict[str, Any]) -> dict[str, Any]:
    """A reference as the paper page lists it: its title readable, its first authors."""
    names = [n for n in reference["authors"].split(", ") if n and n != "et al"]
    authors = ", ".join(names[:_SHOWN_AUTHORS]) + (" et al." if len(names) > _SHOWN_AUTHORS else "")
    return {**reference, "title": readable_tex(reference["title"]), "authors": authors}


def _reader(services: ServicesDep, paper_id: str) -> PdfInfo | None:
    """The paper's PDF for the reader, when this server holds it."""
    try:
        return services.pdf_pages.info(paper_id)
    except (PdfUnavailable, ReaderBusy):
        return None


def _asset_response(asset: Asset, if_none_match: str | None, accept_encoding: str) -> Response:
    headers = {
        "ETag": asset.etag,
        "Cache-Control": "no-cache",
        "Vary": "Accept-Encoding",
        "X-Content-Type-Options": "nosniff",
        # Other sites load dock.js and the dock's icon with one tag.
        "Cross-Origin-Resource-Policy": "cross-origin",
    }
    if if_none_match == asset.etag:
        return Response(status_code=304, headers=headers)
    if "gzip" in accept_encoding:
        headers["Content-Encoding"] = "gzip"
        return Response(asset.gzipped, media_type=asset.media_type, headers=headers)
    return Response(asset.body, media_type=asset.media_type, headers=headers)


@router.get("/dock.js", include_in_schema=False)
def dock_script(
    services: ServicesDep,
    if_none_match: Annotated[str | None, Header()] = None,
    accept_encoding: Annotated[str, Header()] = "",
) -> Response:
    limit = services.settings.max_question_chars
    asset = static_asset("dock.js", (("__PAPERCHAT_MAX_QUESTION_CHARS__", limit),))
    return _asset_response(asset, if_none_match, accept_encoding)


@router.get("/static/{name}", include_in_schema=False)
def static_file(
    name: str,
    if_none_match: Annotated[str | None, Header()] = None,
    accept_encoding: Annotated[str, Header()] = "",
) -> Response:
    try:
        asset = static_asset(name)
    except AssetNotFound:
        return Response("not found", status_code=404, media_type="text/plain")
    return _asset_response(asset, if_none_match, accept_encoding)


class DockSession(BaseModel):
    """What the dock needs to start: who is signed in by cookie, that session's CSRF token,
    and whether sign-up is open."""

    user: Me | None
    csrf_token: str | None
    allow_signup: bool


@router.get("/dock/session")
def dock_session(
    request: Request, response: Response, services: ServicesDep, session: SessionDep
) -> DockSession:
    """The browser session's user and CSRF token (null when signed out). Only this origin and
    the origins in `PAPERCHAT_CORS_ORIGINS` can read the answer, as with login's."""
    response.headers["Cache-Control"] = "no-store"
    signed_in = cookie_session(request, services, session)
    signup = services.settings.allow_signup
    if signed_in is None:
        return DockSession(user=None, csrf_token=None, allow_signup=signup)
    data, user = signed_in
    return DockSession(user=Me.of(user), csrf_token=data.csrf_token, allow_signup=signup)
