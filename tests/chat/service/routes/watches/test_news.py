"""New evidence for saved questions: papers a separate `paperchat ingest` adds while the
server runs are news for the questions they answer anew, within each question's scope,
shown to its owner alone (the API, Latest for you, the private feed, the digest)."""

from __future__ import annotations

import asyncio
import html
from typing import Any

import httpx
import pytest

from chat.service.mail import send_digests
from tests.chat.service.routes.watches.conftest import (
    DIPOLES,
    DIPOLES_PAPER,
    PHOTONS,
    UNRELATED_PAPER,
    WatchServer,
    news_of,
    records,
    save,
)
from tests.chat.service.test_mail import Inbox, inbox_fixture  # noqa: F401 - a pytest fixture
from tests.support.running.server import fake_llm_fixture  # noqa: F401 - a pytest fixture, used by name

pytestmark = pytest.mark.timeout(600)

REPEATING_PAPER = "0704.0199"  # the photon pairs' paper again under another id
# An author of the first records, who signs the arriving paper that answers DIPOLES too.
AUTHOR = "P. M. Nadolsky"
OTHER_AUTHOR = "Ileana Streinu"  # an author of the first records, not of the arrivals


def _arrivals() -> list[dict[str, Any]]:
    """The paper answering DIPOLES, one answering neither, and one only repeating the paper
    that answers PHOTONS already."""
    known = records()
    repeat = {**known["0704.0001"], "id": REPEATING_PAPER}
    answering = {**known[DIPOLES_PAPER]}
    answering["authors"] = f"{answering['authors']}, {AUTHOR}"
    return [answering, known[UNRELATED_PAPER], repeat]


@pytest.fixture(scope="module")
def arrived(watch_server: WatchServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Two users' saved questions, then the new papers ingested: the users' emails, the
    questions' ids, the owner's collection's."""
    api = watch_server.api
    made = {"owner": api.new_user(), "stranger": api.new_user()}
    with api.key_client(made["owner"]) as owner, api.key_client(made["stranger"]) as stranger:
        collection = owner.post("/api/collections", json={"name": "graphs"}).json()["id"]
        owner.post(f"/api/collections/{collection}/papers", json={"paper_id": "0704.0002"})
        made |= {
            "collection": collection,
            "dipoles": save(owner, DIPOLES)["id"],
            "photons": save(owner, PHOTONS)["id"],
            "in collection": save(owner, DIPOLES, collection_id=collection)["id"],
            "by author": save(owner, DIPOLES, author=AUTHOR)["id"],
            "by another author": save(owner, DIPOLES, author=OTHER_AUTHOR)["id"],
            "stranger's": save(stranger, PHOTONS)["id"],
        }
    watch_server.ingest(tmp_path_factory.mktemp("arrivals"), _arrivals())
    return made


def _feed(client: httpx.Client) -> str:
    made = client.post("/api/feeds/private")
    assert made.status_code == 201, made.text
    url: str = made.json()["url"]
    return url


def test_a_new_paper_that_answers_a_saved_question_is_its_news(
    watch_server: WatchServer, arrived: dict[str, str]
) -> None:
    api = watch_server.api
    with api.key_client(arrived["owner"]) as owner, api.key_client(arrived["stranger"]) as other:
        news = {w["id"]: w["news"] for w in owner.get("/api/watches").json()["watches"]}
        alerts = owner.get("/api/alerts").json()
        strangers = news_of(other, arrived["stranger's"])

    [found] = news[arrived["dipoles"]]
    assert found["paper_id"] == DIPOLES_PAPER
    assert found["citation"] == f"[arXiv:{DIPOLES_PAPER}]"
    assert "discrete dipole approximation" in found["sentence"]
    assert found["read"] is False
    # Neither the unrelated paper nor the one repeating what the answer had is news.
    assert news[arrived["photons"]] == []
    assert strangers == []
    assert alerts["unread"] == sum(not n["read"] for listed in news.values() for n in listed)


def test_a_question_of_an_authors_papers_has_news_only_of_their_new_papers(
    watch_server: WatchServer, arrived: dict[str, str]
) -> None:
    with watch_server.api.key_client(arrived["owner"]) as owner:
        theirs = news_of(owner, arrived["by author"])
        anothers = news_of(owner, arrived["by another author"])

    assert [n["paper_id"] for n in theirs] == [DIPOLES_PAPER]
    assert anothers == []


def test_a_question_within_a_collection_has_news_only_of_its_papers(
    watch_server: WatchServer, arrived: dict[str, str]
) -> None:
    watch, collection = arrived["in collection"], arrived["collection"]
    with watch_server.api.key_client(arrived["owner"]) as owner:
        before = news_of(owner, watch)
        owner.post(f"/api/collections/{collection}/papers", json={"paper_id": DIPOLES_PAPER})
        once_added = news_of(owner, watch)

    assert before == []
    assert [n["paper_id"] for n in once_added] == [DIPOLES_PAPER]


def test_news_shows_in_latest_for_you_the_feed_and_the_digest_of_its_owner_alone(
    watch_server: WatchServer,
    arrived: dict[str, str],
    inbox: tuple[Inbox, str],
) -> None:
    api = watch_server.api
    handler, smtp_url = inbox
    with (
        api.signed_in(arrived["owner"]) as owner,
        api.signed_in(arrived["stranger"]) as stranger,
        api.client() as anonymous,
    ):
        for client in (owner, stranger):
            assert client.put("/api/digest", json={"frequency": "daily"}).status_code == 200
        owners_feed, strangers_feed = _feed(owner), _feed(stranger)
        latest = html.unescape(owner.get("/latest").text)
        strangers_latest = html.unescape(stranger.get("/latest").text)
        feed = html.unescape(anonymous.get(owners_feed).text)
        strangers = html.unescape(anonymous.get(strangers_feed).text)
    services = api.services
    sent = asyncio.run(
        send_digests(
            services.sessions,
            services.index.catalog,
            smtp_url,
            "pc@example.org",
            "https://papers.example.org",
            watcher=services.index.watcher,
        )
    )

    said = f"New for your question “{DIPOLES}”:"
    cited = f"[arXiv:{DIPOLES_PAPER}]"
    assert said in feed
    assert cited in feed
    assert "discrete dipole approximation" in latest
    assert cited in latest
    assert DIPOLES_PAPER not in strangers_latest
    assert DIPOLES_PAPER not in strangers
    assert sent.sent == 1
    [message] = handler.messages
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    body = payload.decode()
    assert message["To"] == arrived["owner"]
    assert said in body
    assert cited in body
    assert f"https://papers.example.org/papers/{DIPOLES_PAPER}" in body
