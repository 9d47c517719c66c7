"""A user's own upload, once read, is new material for their saved questions alone: the
question it answers has its news, cited `[doc:<id>]`, in the API, the private feed and the
digest (linked to the upload's reader); one it does not answer has none; another user's
identical question never hears of it; deleting the upload takes its news."""

from __future__ import annotations

import asyncio
import html
from typing import Any

import httpx
import pytest

from chat.service.mail import send_digests
from tests.chat.service.routes.uploads.conftest import (
    ACL_PDF,
    upload,
    uploads_api_fixture,  # noqa: F401 - a pytest fixture, used by name
)
from tests.chat.service.test_mail import Inbox, inbox_fixture  # noqa: F401 - a pytest fixture
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(900)

# What the ACL paper (LongEval) answers, and what it does not.
FAITHFULNESS = "How should humans evaluate the faithfulness of long-form summaries?"
PHOTONS = "How are massive photon pairs produced at hadron colliders?"


def _watch(client: httpx.Client, question: str) -> str:
    made = client.post("/api/watches", json={"question": question})
    assert made.status_code == 201, made.text
    watch_id: str = made.json()["id"]
    return watch_id


def _news(client: httpx.Client) -> dict[str, list[dict[str, Any]]]:
    """The user's saved questions' news, by question."""
    watches = client.get("/api/watches").json()["watches"]
    return {w["question"]: w["news"] for w in watches}


def _feed(client: httpx.Client) -> str:
    """The user's private feed, as its reader fetches it (without signing in)."""
    made = client.post("/api/feeds/private")
    assert made.status_code == 201, made.text
    return html.unescape(httpx.get(made.json()["url"], timeout=60).text)


def _digests(api: Api, inbox: tuple[Inbox, str]) -> dict[str, str]:
    """The digests sent now, by recipient."""
    handler, smtp_url = inbox
    services = api.services
    site = "https://papers.example.org"
    asyncio.run(
        send_digests(
            services.sessions, services.index.catalog, smtp_url, "pc@example.org", site,
            watcher=services.index.watcher,
        )
    )  # fmt: skip
    sent = {}
    for message in handler.messages:
        payload = message.get_payload(decode=True)
        assert isinstance(payload, bytes)
        sent[str(message["To"])] = payload.decode()
    return sent


def test_an_upload_is_news_for_its_owners_question_it_answers_alone(
    uploads_api: Api, inbox: tuple[Inbox, str]
) -> None:
    owner, other = uploads_api.new_user(), uploads_api.new_user()
    with uploads_api.key_client(owner) as mine, uploads_api.key_client(other) as theirs:
        for client in (mine, theirs):
            assert client.put("/api/digest", json={"frequency": "daily"}).status_code == 200
        _watch(mine, FAITHFULNESS)
        _watch(mine, PHOTONS)
        _watch(theirs, FAITHFULNESS)
        made = upload(mine, ACL_PDF)

        news = _news(mine)
        their_news = _news(theirs)
        their_watches = theirs.get("/api/watches").text
        feed, their_feed = _feed(mine), _feed(theirs)
        with uploads_api.signed_in(owner) as browser, uploads_api.signed_in(other) as stranger:
            latest = html.unescape(browser.get("/latest").text)
            their_latest = html.unescape(stranger.get("/latest").text)
        digests = _digests(uploads_api, inbox)
        deleted = mine.delete(f"/api/uploads/{made['id']}")
        after = _news(mine)
        feed_after = _feed(mine)

    assert made["status"] == "ready", made
    [found] = news[FAITHFULNESS]
    assert found["paper_id"] == made["doc_id"]
    assert found["citation"] == f"[doc:{made['doc_id']}]"
    assert found["sentence"]
    assert news[PHOTONS] == []
    said = f"New for your question “{FAITHFULNESS}”: {found['sentence']} {found['citation']}"
    reader = f"/uploads/{made['id']}/read"
    assert said in feed
    assert reader in feed
    assert made["title"] in feed
    assert said in digests[owner]
    assert f"https://papers.example.org{reader}" in digests[owner]
    assert f"your question “{FAITHFULNESS}”, new: {found['sentence']}" in latest
    assert f'<a href="{reader}">{made["title"]}</a>' in latest
    assert their_news == {FAITHFULNESS: []}
    for seen in (their_watches, their_feed, their_latest):
        assert made["doc_id"] not in seen
        assert made["title"] not in seen
    assert other not in digests
    assert deleted.status_code == 204
    assert after == {FAITHFULNESS: [], PHOTONS: []}
    assert reader not in feed_after


def test_a_question_within_a_collection_hears_of_an_upload_once_the_collection_holds_it(
    uploads_api: Api,
) -> None:
    with uploads_api.key_client() as client:
        holding = client.post("/api/collections", json={"name": "summaries"}).json()["id"]
        other = client.post("/api/collections", json={"name": "elsewhere"}).json()["id"]
        for collection in (holding, other):
            saved = client.post(
                "/api/watches", json={"question": FAITHFULNESS, "collection_id": collection}
            )
            assert saved.status_code == 201, saved.text
        made = upload(client, ACL_PDF)

        before = client.get("/api/watches").json()["watches"]
        added = client.post(f"/api/collections/{holding}/uploads", json={"upload_id": made["id"]})
        after = client.get("/api/watches").json()["watches"]

    news = {w["scope"]["collection_id"]: w["news"] for w in after}
    assert [w["news"] for w in before] == [[], []]
    assert added.status_code == 201, added.text
    assert [n["citation"] for n in news[holding]] == [f"[doc:{made['doc_id']}]"]
    assert news[other] == []
