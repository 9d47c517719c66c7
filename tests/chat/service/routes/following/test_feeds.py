"""The Atom feeds, read by feedparser as a feed reader reads them: valid (no bozo flag),
each holding the papers it is about, newest first; the private feed behind its token."""

from __future__ import annotations

import sqlite3
from typing import Any

import feedparser
import httpx
import pytest

from tests.chat.service.routes.following.conftest import FollowsServer

pytestmark = pytest.mark.timeout(600)


def _read(client: httpx.Client, path: str) -> Any:
    response = client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    return feed


def _papers(server: FollowsServer) -> list[sqlite3.Row]:
    db = sqlite3.connect(server.settings.data_dir / "catalog.sqlite")
    db.row_factory = sqlite3.Row
    try:
        return list(db.execute("SELECT id, title, abstract, categories, published FROM papers"))
    finally:
        db.close()


def _newest(rows: list[sqlite3.Row]) -> list[str]:
    ordered = sorted(rows, key=lambda r: (r["published"], r["id"]), reverse=True)
    return [f"https://arxiv.org/abs/{r['id']}" for r in ordered]


def test_latest_and_category_feeds_list_the_newest_papers(follows_server: FollowsServer) -> None:
    rows = _papers(follows_server)
    category = rows[0]["categories"].split()[0]

    with follows_server.api.client() as client:
        latest = _read(client, "/feeds/latest.atom")
        in_category = _read(client, f"/feeds/categories/{category}.atom")
        missing = client.get("/feeds/categories/not%20one.atom")

    assert [e.id for e in latest.entries] == _newest(rows)[:50]
    assert [e.id for e in in_category.entries] == _newest(
        [r for r in rows if category in r["categories"].split()]
    )
    assert all(category in [t.term for t in e.tags] for e in in_category.entries)
    assert latest.feed.links[0].href.endswith("/feeds/latest.atom")
    assert missing.status_code == 404


def test_researcher_feed_by_id_or_name_lists_their_papers(follows_server: FollowsServer) -> None:
    with follows_server.api.key_client() as client:
        paper = client.get("/api/papers/0704.0001").json()
        name = paper["authors"].split(",")[-1].strip()
        found = client.get("/api/researchers", params={"name": name}).json()["results"]
        by_name = _read(client, f"/feeds/researchers/{name}.atom")
        by_id = _read(client, f"/feeds/researchers/{found[0]['id']}.atom")
        nobody = client.get("/feeds/researchers/Nobody Here.atom")

    assert "https://arxiv.org/abs/0704.0001" in [e.id for e in by_name.entries]
    assert [e.id for e in by_id.entries] == [e.id for e in by_name.entries]
    assert any(name in [a.name for a in e.authors] for e in by_name.entries)
    assert nobody.status_code == 404


def test_saved_search_feed_lists_papers_holding_its_words(follows_server: FollowsServer) -> None:
    rows = _papers(follows_server)
    words = rows[3]["title"].lower().split()[:2]

    with follows_server.api.key_client() as client:
        saved = client.post("/api/follows", json={"kind": "search", "value": " ".join(words)})
        feed = _read(client, f"/feeds/searches/{saved.json()['id']}.atom")
        category = client.post("/api/follows", json={"kind": "category", "value": "hep-ph"})
        not_a_search = client.get(f"/feeds/searches/{category.json()['id']}.atom")

    holding = [r for r in rows if all(w in f"{r['title']} {r['abstract']}".lower() for w in words)]
    assert [e.id for e in feed.entries] == _newest(holding)
    assert feed.entries
    assert not_a_search.status_code == 404


def test_private_feed_opens_with_its_token_until_revoked(follows_server: FollowsServer) -> None:
    api = follows_server.api
    with api.key_client() as client, api.client() as reader:
        first = client.post("/api/feeds/private")
        second = client.post("/api/feeds/private").json()
        replaced = reader.get(first.json()["url"])
        feed = _read(reader, second["url"])
        revoked = client.delete("/api/feeds/private")
        after = reader.get(second["url"])
        again = client.delete("/api/feeds/private")

    assert first.status_code == 201
    assert second["url"].endswith(f"/feeds/private/{second['token']}.atom")
    assert replaced.status_code == 404
    assert feed.feed.title == "paperchat: latest for you"
    assert (revoked.status_code, after.status_code, again.status_code) == (204, 404, 404)
