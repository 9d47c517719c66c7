"""`/categories/<category>` (`cs.CL`): the category's papers, newest first, a page at a time,
with its Atom feed and a Follow button; as Markdown with `Accept: text/markdown` or a `.md`
suffix. A category no paper in the index is in is a 404 page that says so."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

from anyio import to_thread
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import HTMLResponse, Response

from chat.library.categories import (
    MAX_CATEGORY_PAGES,
    CategoryNotFound,
    CategoryPage,
    category_papers,
    category_path,
)
from chat.library.papers import page_path
from chat.service.routes.deps import ServicesDep
from chat.service.web.address import site_address
from chat.service.web.discovery.unapi import coins_of
from chat.service.web.listings.pagination import page_links
from chat.service.web.markdown import (
    MARKDOWN_SUFFIX,
    VARY_ACCEPT,
    escaped,
    listing_markdown,
    markdown_response,
    wants_markdown,
)
from chat.service.web.rendering import render_page
from chat.service.web.shared_pages import SharedPagesDep
from ingest.index.catalog import Catalog
from ingest.index.names.people import written_names
from ingest.index.records import Paper
from ingest.index.tex import readable_tex

router = APIRouter(tags=["dock"])


def category_feed(category: str) -> str:
    return f"/feeds/categories/{quote(category, safe='')}.atom"


@router.get("/categories/{wanted}", response_class=HTMLResponse, include_in_schema=False)
async def category_page(
    wanted: str,
    request: Request,
    services: ServicesDep,
    pages: SharedPagesDep,
    page: Annotated[int, Query(ge=1, le=MAX_CATEGORY_PAGES)] = 1,
    accept: Annotated[str, Header()] = "",
) -> Response:
    """The category's papers, newest first (first version, else last update), 25 a page;
    the first page made once for every reader while the catalog stays as it is."""
    as_markdown = wanted.endswith(MARKDOWN_SUFFIX)
    category = wanted.removesuffix(MARKDOWN_SUFFIX)
    listing = partial(_listing, services.index.catalog, category, page)
    try:
        if page == 1:
            found, papers = await pages.get(("category", category), listing)
        else:
            found, papers = await to_thread.run_sync(listing)
    except CategoryNotFound as e:
        response = render_page("category_not_found.html", 404, wanted=category, reason=str(e))
        response.headers.update(VARY_ACCEPT)
        return response
    answer = partial(
        _answer, request, services, found, papers, as_markdown or wants_markdown(accept)
    )
    return await to_thread.run_sync(answer)


def _answer(
    request: Request,
    services: ServicesDep,
    found: CategoryPage,
    papers: list[dict[str, Any]],
    as_markdown: bool,
) -> Response:
    """The page as HTML or Markdown (in a worker thread: its papers may list many authors)."""
    base = site_address(request, services.settings)
    if as_markdown:
        return markdown_response(_markdown(found, papers, base))
    path, page = quote(category_path(found.category)), found.page
    response = render_page(
        "category.html",
        category=found,
        papers=papers,
        pages=page_links(found.page, found.pages, path),
        canonical=f"{base}{path}" + (f"?page={page}" if page > 1 else ""),
        feed=category_feed(found.category),
        coins=coins_of(request, services),
        markdown_url=f"{path}{MARKDOWN_SUFFIX}" + (f"?page={page}" if page > 1 else ""),
    )
    response.headers.update(VARY_ACCEPT)
    return response


def _listing(
    catalog: Catalog, category: str, page: int
) -> tuple[CategoryPage, list[dict[str, Any]]]:
    found = category_papers(catalog, category, page)
    return found, [_listed(paper) for paper in found.papers]


def _listed(paper: Paper) -> dict[str, Any]:
    names = [readable_tex(n) for n in written_names(paper.authors)]
    return {
        "id": paper.id,
        "href": page_path(paper),
        "title": readable_tex(paper.title),
        "names": names,
        "published": paper.published or paper.updated,
        "categories": list(paper.categories),
    }


def _markdown(found: CategoryPage, papers: list[dict[str, Any]], base: str) -> str:
    last = found.first + len(papers) - 1
    intro = escaped(
        f"{found.total} paper{'' if found.total == 1 else 's'} in this index, newest first;"
        f" page {found.page} of {found.pages} (papers {found.first} to {last})."
    )
    feed = f"Atom feed: <{base}{category_feed(found.category)}>"
    text = listing_markdown(f"Category {found.category}", f"{intro}\n\n{feed}", papers, base)
    if found.page < found.pages:
        following = f"{base}{quote(category_path(found.category))}.md?page={found.page + 1}"
        text += f"\nNext page: <{following}>\n"
    return text
