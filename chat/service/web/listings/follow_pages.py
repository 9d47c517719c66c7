"""The signed-in user's pages of following: "Latest for you" (the papers new to their
follows) and the settings of what they follow, with each follow's feed. Signed out, each
page says to sign in (the dock does it)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from chat.library.authors import AuthorNotFound
from chat.library.follows import followed_person
from chat.library.papers import page_path
from chat.library.researchers import researcher_path
from chat.rag.watching import Watcher
from chat.service.routes.deps import ServicesDep, SessionDep, cookie_session
from chat.service.storage.alerts import list_alerts, refresh_alerts, unread_count
from chat.service.storage.digests import digest_frequency
from chat.service.storage.follows import has_feed_token, list_follows
from chat.service.storage.tables import Follow
from chat.service.storage.watches import (
    NewsPapers,
    list_watch_alerts,
    news_page,
    refresh_watches,
    unread_watch_alerts,
)
from chat.service.web.discovery.unapi import coins_of
from chat.service.web.rendering import render_page
from ingest.index.catalog import Catalog
from ingest.index.tex import readable_tex

router = APIRouter(tags=["dock"])


def follow_feed(follow: Follow) -> str | None:
    """The address of the feed of what `follow` follows; None for a paper."""
    if follow.kind == "category":
        return f"/feeds/categories/{quote(follow.value, safe='')}.atom"
    if follow.kind == "researcher":
        return f"/feeds/researchers/{quote(follow.value, safe='')}.atom"
    if follow.kind == "search":
        return f"/feeds/searches/{follow.id}.atom"
    return None


def follow_name(catalog: Catalog, follow: Follow) -> tuple[str, str | None]:
    """How the pages name what `follow` follows, and the page to link: a researcher by name
    (the value kept may be their id), linked to their page while the index has them."""
    if follow.kind != "researcher":
        return follow.value, None
    try:
        person = followed_person(catalog, follow.value)
    except AuthorNotFound:
        return follow.value, None
    return readable_tex(person.display), researcher_path(person)


@router.get("/latest", response_class=HTMLResponse, include_in_schema=False)
def latest_page(request: Request, services: ServicesDep, session: SessionDep) -> HTMLResponse:
    signed_in = cookie_session(request, services, session)
    if signed_in is None:
        return render_page("latest.html", signed_in=False, alerts=[], unread=0)
    user = signed_in[1]
    catalog = services.index.catalog
    refresh_alerts(session, catalog, user.id)
    refresh_watches(session, services.index.watcher, user.id)
    follows = {f.id: f for f in list_follows(session, user.id)}
    alerts: list[dict[str, Any]] = []
    for alert in list_alerts(session, user.id):
        paper = catalog.get_paper(alert.paper_id)
        follow = follows.get(alert.follow_id)
        if paper is None or follow is None:
            continue
        alerts.append(
            {
                "paper": paper,
                "href": page_path(paper),
                "title": readable_tex(paper.title),
                "version": alert.version,
                "read": alert.read,
                "because": f"{follow.kind}: {follow_name(catalog, follow)[0]}",
                "at": alert.created_at,
            }
        )
    alerts += _news(services.index.watcher, session, user.id)
    alerts.sort(key=lambda alert: alert["at"], reverse=True)
    unread = unread_count(session, user.id) + unread_watch_alerts(session, user.id)
    return render_page(
        "latest.html",
        signed_in=True,
        alerts=alerts,
        unread=unread,
        coins=coins_of(request, services),
    )


def _news(watcher: Watcher, session: SessionDep, user_id: str) -> list[dict[str, Any]]:
    """The new evidence for the user's saved questions, as the page lists alerts: a library
    paper's links to its page, news found in the user's own upload to the upload's reader."""
    found: list[dict[str, Any]] = []
    with NewsPapers(watcher) as papers:
        for alert, watch in list_watch_alerts(session, user_id):
            paper = papers.paper(alert)
            if paper is None:
                continue
            found.append(
                {
                    "paper": paper,
                    "href": news_page(alert) or page_path(paper),
                    # An upload's record is the owner's alone: no unAPI id for a reference manager.
                    "private": alert.upload_id is not None,
                    "title": readable_tex(paper.title),
                    "version": "",
                    "read": alert.read,
                    # Said after "for": the question, and the new paper's sentence that answers.
                    "because": f"your question “{watch.question}”, new: "
                    f"{readable_tex(alert.sentence)} {alert.citation}",
                    "at": alert.created_at,
                }
            )
    return found


@router.get("/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_page(request: Request, services: ServicesDep, session: SessionDep) -> HTMLResponse:
    signed_in = cookie_session(request, services, session)
    if signed_in is None:
        return render_page("follow_settings.html", signed_in=False, follows=[])
    user = signed_in[1]
    follows = []
    for follow in list_follows(session, user.id):
        name, href = follow_name(services.index.catalog, follow)
        feed = follow_feed(follow)
        follows.append(
            {"id": follow.id, "kind": follow.kind, "name": name, "href": href, "feed": feed}
        )
    return render_page(
        "follow_settings.html",
        signed_in=True,
        follows=follows,
        private_feed=has_feed_token(session, user.id),
        digest=digest_frequency(session, user.id),
        mail=services.settings.smtp_url is not None,
    )
