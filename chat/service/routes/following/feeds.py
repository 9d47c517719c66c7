"""Atom feeds of papers, public but for the private one: the newest papers, a category's,
a researcher's, a saved search's, and a user's follows' behind a revocable token."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request, Response, status

from chat.library.categories import category_path, indexed_category
from chat.library.feeds import FEED_ENTRIES, MEDIA_TYPE, Feed, atom_feed, timestamp
from chat.library.follows import followed_person, search_words
from chat.library.researchers import researcher_path
from chat.service.routes.deps import ServicesDep, SessionDep
from chat.service.routes.errors import errors
from chat.service.storage.alerts import list_alerts, refresh_alerts
from chat.service.storage.follows import feed_owner
from chat.service.storage.tables import Follow
from chat.service.storage.watches import (
    NewsPapers,
    list_watch_alerts,
    news_line,
    news_page,
    refresh_watches,
)
from chat.service.web.address import site_address
from chat.service.web.shared_pages import SharedPagesDep
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.tables.arrivals import newest_date, newest_ids

router = APIRouter(tags=["feeds"])

_ATOM: dict[int | str, dict[str, Any]] = {
    200: {"content": {MEDIA_TYPE: {"schema": {"type": "string"}}}, "description": "an Atom feed"}
}
_ATOM_OR_404 = {**_ATOM, **errors(404, 422)}


def _papers(catalog: Catalog, ids: list[str]) -> list[Paper]:
    return [p for p in (catalog.get_paper(i) for i in ids) if p is not None]


def _answer(
    request: Request,
    services: ServicesDep,
    title: str,
    page: str,
    papers: list[Paper],
    feed_id: str = "",
    summaries: dict[str, str] | None = None,
    pages: dict[str, str] | None = None,
) -> Response:
    """The feed; one with no entries dated by the catalog's newest record."""
    site = site_address(request, services.settings)
    query = f"?{request.url.query}" if request.url.query else ""
    self_url = f"{site}{quote(request.url.path)}{query}"
    quiet = "" if papers else timestamp(newest_date(services.index.catalog.db))
    feed = Feed(title, self_url, f"{site}{page}", id=feed_id, quiet_since=quiet)
    return Response(atom_feed(feed, papers, site, summaries, pages), media_type=MEDIA_TYPE)


LATEST_TITLE = "paperchat: the newest papers"


def _kept_feed(
    catalog: Catalog, site: str, path: str, title: str, page: str, papers: list[Paper]
) -> bytes:
    """A public feed every reader gets alike: its own address without the request's query."""
    quiet = "" if papers else timestamp(newest_date(catalog.db))
    feed = Feed(title, f"{site}{quote(path)}", f"{site}{page}", quiet_since=quiet)
    return atom_feed(feed, papers, site)


def private_feed_id(site: str, user_id: str) -> str:
    """The private feed's permanent id: a name-based UUID of the site and its owner, the
    same whichever token opens it and saying nothing of any."""
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{site}/feeds/private/{user_id}')}"


@router.get("/feeds/latest.atom", response_class=Response, responses=_ATOM)
async def latest_feed(request: Request, services: ServicesDep, pages: SharedPagesDep) -> Response:
    """The newest papers in the index (by first version): made once for every reader while
    the catalog stays as it is."""
    catalog, site = services.index.catalog, site_address(request, services.settings)

    def make() -> bytes:
        papers = _papers(catalog, newest_ids(catalog.db, FEED_ENTRIES))
        return _kept_feed(catalog, site, "/feeds/latest.atom", LATEST_TITLE, "/", papers)

    body = await pages.get(("latest feed", site), make)
    return Response(body, media_type=MEDIA_TYPE)


@router.get("/feeds/categories/{category}.atom", response_class=Response, responses=_ATOM_OR_404)
async def category_feed(
    category: str, request: Request, services: ServicesDep, pages: SharedPagesDep
) -> Response:
    """The newest papers in an arXiv category (`cs.CL`); 404 for what is not a category or a
    category no paper in the index is in, as its page. Made once for every reader while the
    catalog stays as it is."""
    catalog, site = services.index.catalog, site_address(request, services.settings)

    def make() -> bytes:
        indexed_category(catalog, category)
        papers = _papers(catalog, newest_ids(catalog.db, FEED_ENTRIES, category=category))
        page, title = quote(category_path(category)), f"{LATEST_TITLE} in {category}"
        return _kept_feed(catalog, site, f"/feeds/categories/{category}.atom", title, page, papers)

    body = await pages.get(("category feed", category, site), make)
    return Response(body, media_type=MEDIA_TYPE)


@router.get(
    "/feeds/researchers/{researcher_id}.atom", response_class=Response, responses=_ATOM_OR_404
)
def researcher_feed(researcher_id: str, request: Request, services: ServicesDep) -> Response:
    """A researcher's newest papers: the researcher by id (as in `/researchers/<id>-<name>`)
    or by an author name; 404 when neither is in the index."""
    catalog = services.index.catalog
    person = followed_person(catalog, researcher_id)
    papers = catalog.papers_of(person)[:FEED_ENTRIES]
    title = f"paperchat: papers by {person.display}"
    return _answer(request, services, title, researcher_path(person), papers)


@router.get("/feeds/searches/{follow_id}.atom", response_class=Response, responses=_ATOM_OR_404)
def search_feed(
    follow_id: str, request: Request, services: ServicesDep, session: SessionDep
) -> Response:
    """The newest papers whose title or abstract hold every word of a saved search (a follow
    of kind `search`, by its id); 404 for any other id."""
    saved = session.get(Follow, follow_id)
    if saved is None or saved.kind != "search":
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no saved search {follow_id!r}")
    catalog = services.index.catalog
    words = search_words(saved.value)
    papers = _papers(catalog, newest_ids(catalog.db, FEED_ENTRIES, words=words))
    page = f"/?q={quote(saved.value)}"
    return _answer(request, services, f"paperchat: papers on “{saved.value}”", page, papers)


@router.get(
    "/feeds/private/{token}.atom",
    response_class=Response,
    responses=_ATOM_OR_404,
    name="private_feed",
)
def private_feed(
    token: str, request: Request, services: ServicesDep, session: SessionDep
) -> Response:
    """The papers new to a user's follows and the new evidence for their saved questions
    (its summary the sentence quoted, cited), the newest first, behind the token the user
    made (`POST /api/feeds/private`); 404 once it is revoked or replaced."""
    user_id = feed_owner(session, token)
    if user_id is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such feed: revoked or mistyped")
    catalog = services.index.catalog
    refresh_alerts(session, catalog, user_id)
    refresh_watches(session, services.index.watcher, user_id)
    news = list_watch_alerts(session, user_id)
    found = [(a.created_at, a.paper_id) for a in list_alerts(session, user_id)]
    found += [(alert.created_at, alert.paper_id) for alert, _ in news]
    found.sort(key=lambda pair: pair[0], reverse=True)
    ids = list(dict.fromkeys(paper_id for _, paper_id in found))[:FEED_ENTRIES]
    # News found in the user's own uploads: the upload's record, linked to its reader.
    with NewsPapers(services.index.watcher) as news_papers:
        uploaded = {
            alert.paper_id: (paper, page)
            for alert, _ in news
            if (page := news_page(alert)) and (paper := news_papers.paper(alert))
        }
    listed = (uploaded[i][0] if i in uploaded else catalog.get_paper(i) for i in ids)
    papers = [p for p in listed if p is not None]
    # A paper new to several saved questions says the newest one's news.
    summaries = {alert.paper_id: news_line(watch.question, alert) for alert, watch in news[::-1]}
    feed_id = private_feed_id(site_address(request, services.settings), user_id)
    title = "paperchat: latest for you"
    pages = {i: page for i, (_, page) in uploaded.items()}
    return _answer(request, services, title, "/latest", papers, feed_id, summaries, pages)
