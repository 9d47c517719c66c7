"""The dock's count of papers new to the user's follows, in Chromium, and the pages of
following: "Latest for you" and "What you follow", each with its Atom feeds linked."""

from __future__ import annotations

import re

import feedparser
import pytest
from markupsafe import escape
from playwright.sync_api import Page, expect

from chat.library.follows import Target
from chat.service.access.accounts import get_user
from chat.service.storage.follows import add_follow
from tests.chat.service.web.conftest import PAPER_ID
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(120)


def _follow_an_older_version(web: Api, email: str) -> None:
    """A follow of PAPER_ID made when it was at a version before the index's: one alert."""
    with web.services.sessions() as session:
        user = get_user(session, email)
        add_follow(session, user.id, Target("paper", PAPER_ID, "v0"), 0)


def test_dock_shows_the_unread_count_until_the_alerts_are_read(web: Api, page: Page) -> None:
    email = web.new_user()
    _follow_an_older_version(web, email)
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    badge = page.locator("paperchat-dock .launcher .unread")
    expect(badge).to_be_hidden()

    dock.sign_in(email)

    link = page.locator("paperchat-dock .unread-link")
    expect(link).to_have_text("1 new paper for you", timeout=WAIT_MS)
    expect(link).to_have_attribute("href", f"{web.base_url}/latest")
    with web.signed_in(email) as client:
        assert client.post("/api/alerts/read").json()["unread"] == 0
    page.reload()
    expect(page.locator("paperchat-dock .who")).to_have_text(email, timeout=WAIT_MS)
    expect(link).to_be_hidden(timeout=WAIT_MS)
    expect(badge).to_be_hidden()


def test_latest_and_settings_pages_list_alerts_and_follows_with_feeds(web: Api) -> None:
    email = web.new_user()
    _follow_an_older_version(web, email)
    with web.signed_in(email) as client, web.client() as anonymous:
        category = client.post("/api/follows", json={"kind": "category", "value": "cs.CL"})
        latest = client.get("/latest").text
        settings = client.get("/settings").text
        signed_out = anonymous.get("/latest").text
        feeds = re.findall(
            r'<link rel="alternate" type="application/atom\+xml"[^>]* href="([^"]+)"', settings
        )
        parsed = [feedparser.parse(anonymous.get(f).content) for f in feeds]

    assert re.search(rf'href="/papers/{re.escape(PAPER_ID)}-[a-z0-9-]+"', latest)
    assert "for paper: " + PAPER_ID in latest
    assert 'href="/feeds/latest.atom"' in latest
    assert feeds == ["/feeds/latest.atom", "/feeds/categories/cs.CL.atom"]
    assert [bool(p.bozo) for p in parsed] == [False, False]
    assert f'data-follow="{category.json()["id"]}"' in settings
    assert "Sign in" in signed_out


def test_a_researcher_followed_by_id_is_named_and_linked_on_the_pages_of_following(
    web: Api,
) -> None:
    with web.key_client() as client:
        name = client.get(f"/api/papers/{PAPER_ID}").json()["authors"].split(",")[0].strip()
        found = client.get("/api/researchers", params={"name": name}).json()["results"][0]
    email = web.new_user()
    with web.services.sessions() as session:
        # From the catalog's first paper on: their papers in the index become alerts.
        add_follow(session, get_user(session, email).id, Target("researcher", found["id"]), 0)

    with web.signed_in(email) as client:
        settings = client.get("/settings").text
        latest = client.get("/latest").text

    shown = escape(found["name"])
    assert f'<span class="kind">researcher</span> <a href="{found["path"]}">{shown}</a>' in settings
    assert f"</span> {found['id']}" not in settings
    assert f"for researcher: {shown}" in latest
    assert found["id"] not in latest


def test_researcher_page_links_its_feed_and_every_page_the_latest(web: Api) -> None:
    with web.key_client() as client:
        name = client.get(f"/api/papers/{PAPER_ID}").json()["authors"].split(",")[0].strip()
        found = client.get("/api/researchers", params={"name": name}).json()["results"][0]
    with web.client() as anonymous:
        page = anonymous.get(f"/researchers/{found['id']}", follow_redirects=True).text
        feeds = re.findall(
            r'<link rel="alternate" type="application/atom\+xml"[^>]* href="([^"]+)"', page
        )
        parsed = {f: feedparser.parse(anonymous.get(f).content) for f in feeds}
        missing = anonymous.get("/papers/9999.99999")

    assert feeds == ["/feeds/latest.atom", f"/feeds/researchers/{found['id']}.atom"]
    assert {f: bool(p.bozo) for f, p in parsed.items()} == dict.fromkeys(feeds, False)
    researcher = parsed[feeds[1]]
    assert PAPER_ID in " ".join(e.id for e in researcher.entries)
    assert missing.status_code == 404
    assert "This library has no paper with that id" in missing.text
