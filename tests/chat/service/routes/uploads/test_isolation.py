"""Uploads seen as an attacker would, with two users and an upload each: another user's
upload answers every route as a missing one does, and no route of the library (search,
papers, reader, feeds, sitemap, counts, chat, `/v1`, MCP, collections) shows any upload,
to anyone, its uploader included: an upload's index is its folder's alone. Asking several
uploads, or collecting one, takes another user's as a missing one too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    Uploader,
    uploaders_fixture,
    uploads_api_fixture,
)
from tests.support.running.server import Api, read_events

pytestmark = pytest.mark.timeout(900)

MISSING = "00000000-0000-4000-8000-000000000000"
QUESTION = "How does batch normalization reduce internal covariate shift?"


def _client(api: Api, who: Uploader) -> httpx.Client:
    return api.client(Authorization=f"Bearer {who.key}")


def _attempts(client: httpx.Client, upload_id: str) -> dict[str, tuple[int, str]]:
    base = f"/api/uploads/{upload_id}"
    answers = {
        "read": client.get(base),
        "pdf": client.get(f"{base}/pdf"),
        "delete": client.delete(base),
    }
    return {name: (r.status_code, r.text.replace(upload_id, "ID")) for name, r in answers.items()}


def test_another_users_upload_answers_as_a_missing_one_and_stays(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders

    with _client(uploads_api, b) as attacker:
        against_a = _attempts(attacker, a.upload["id"])
        against_nothing = _attempts(attacker, MISSING)
        listed = attacker.get("/api/uploads").json()["uploads"]
    with _client(uploads_api, a) as owner:
        after = owner.get(f"/api/uploads/{a.upload['id']}").json()

    assert against_a == against_nothing
    assert {status for status, _ in against_a.values()} == {404}
    assert [u["id"] for u in listed] == [b.upload["id"]]
    assert after == a.upload


LIBRARY_ROUTES = (
    "/api/papers/{id}",
    "/api/papers/{id}/bibtex",
    "/api/papers/{id}/references",
    "/api/papers/{id}/citations",
    "/api/papers/{id}/related",
    "/papers/{id}",
    "/papers/{id}/bibtex",
    "/papers/{id}/pages/1.webp",
    "/papers/{id}/pages/1.json",
    "/papers/{id}/pages/1/annotations",
)


@pytest.mark.parametrize("route", LIBRARY_ROUTES)
def test_no_paper_route_knows_an_upload_for_anyone(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader], route: str
) -> None:
    a, b = uploaders

    with _client(uploads_api, b) as attacker, _client(uploads_api, a) as owner:
        answers = [c.get(route.format(id=u.doc_id)) for c in (attacker, owner) for u in (a, b)]

    assert [r.status_code for r in answers] == [404] * 4


def test_search_feeds_sitemap_and_counts_hold_no_upload(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders
    stats = uploads_api.services.index.catalog.stats()
    titles = [a.upload["title"], b.upload["title"]]

    with _client(uploads_api, b) as attacker:
        searches = [attacker.get("/api/search", params={"q": t, "limit": 50}) for t in titles]
        pages = [attacker.get("/", params={"q": t}) for t in titles]
        health = attacker.get("/api/health").json()
        public = [
            attacker.get(path).text
            for path in ("/sitemap.xml", "/sitemaps/papers-1.xml", "/feeds/latest.atom", "/latest")
        ]

    found = {hit["id"] for s in searches for hit in s.json()["results"]}
    assert not found & {a.doc_id, b.doc_id}
    assert all(a.doc_id not in p.text and b.doc_id not in p.text for p in pages)
    assert (health["papers"], health["chunks"]) == (stats["papers"], stats["chunks"])
    for text in public:
        assert a.doc_id not in text
        assert b.doc_id not in text
        assert titles[0] not in text


def _sources(events: list[Any]) -> set[str]:
    return {s["id"] for e in events if e.name == "sources" for s in e.data["sources"]}


def test_no_answer_draws_on_an_upload_even_when_asked_by_its_id(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders
    ids = [a.doc_id, b.doc_id]

    with _client(uploads_api, b) as attacker:
        with attacker.stream(
            "POST", "/api/chat", json={"message": QUESTION, "paper_ids": ids}
        ) as streamed:
            events = read_events(streamed)
        completion = attacker.post(
            "/v1/chat/completions",
            json={
                "model": "paperchat",
                "messages": [{"role": "user", "content": QUESTION}],
                "paper_ids": ids,
            },
        )
        retrieved = attacker.post("/api/retrieve", json={"query": QUESTION, "paper_ids": ids})
        whole = attacker.post("/api/retrieve", json={"query": QUESTION, "k": 20})

    assert not _sources(events) & set(ids)
    assert completion.status_code == 200
    assert a.doc_id not in completion.text
    assert b.doc_id not in completion.text
    assert retrieved.status_code == 200
    assert retrieved.json()["passages"] == []
    assert not {p["paper_id"] for p in whole.json()["passages"]} & set(ids)
    assert len(whole.json()["passages"]) == 20


def test_a_collection_takes_no_upload(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders

    with _client(uploads_api, b) as attacker:
        collection_id = make_collection(attacker, "Taking", "2007.01282")
        added = attacker.post(
            f"/api/collections/{collection_id}/papers", json={"paper_id": a.doc_id}
        )
        papers = attacker.get(f"/api/collections/{collection_id}").text

    assert added.status_code == 404
    assert a.doc_id not in papers


async def test_no_mcp_tool_shows_an_upload(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders
    ids = [a.doc_id, b.doc_id]

    async with mcp_client(uploads_api, b.key) as mcp:
        searched = await mcp.call_tool("search_papers", {"query": a.upload["title"], "limit": 50})
        papers = [await mcp.call_tool("get_paper", {"paper_id": i}) for i in ids]
        pages = [await mcp.call_tool("page_annotations", {"paper_id": i, "page": 1}) for i in ids]
        retrieved = await mcp.call_tool("retrieve", {"query": QUESTION, "paper_ids": ids})
        asked = await mcp.call_tool("ask", {"question": QUESTION, "paper_ids": ids})

    assert not {hit["id"] for hit in structured(searched)["results"]} & set(ids)
    assert all(p.is_error for p in [*papers, *pages])
    assert structured(retrieved)["passages"] == []
    assert not {s["id"] for s in structured(asked)["sources"]} & set(ids)


def _hidden(response: httpx.Response, *ids: str) -> tuple[int, str]:
    text = response.text
    for upload_id in ids:
        text = text.replace(upload_id, "ID")
    return response.status_code, text


def _uses_of(client: httpx.Client, own: str, upload_id: str, collection_id: str) -> list[Any]:
    """Every way to ask about or collect `upload_id`, beside the client's own upload `own`."""
    asked = [[upload_id], [own, upload_id], [upload_id, own]]
    chats = [
        client.post("/api/chat", json={"message": QUESTION, "upload_ids": ids} | extra)
        for ids in asked
        for extra in ({}, {"with_library": True}, {"paper_ids": ["2007.01282"]})
    ]
    completions = [
        client.post(
            "/v1/chat/completions",
            json={
                "model": "paperchat",
                "messages": [{"role": "user", "content": QUESTION}],
                "upload_ids": ids,
                "with_library": True,
            },
        )
        for ids in asked
    ]
    path = f"/api/collections/{collection_id}/uploads"
    collected = [
        client.post(path, json={"upload_id": upload_id}),
        client.delete(f"{path}/{upload_id}"),
    ]
    return [_hidden(r, upload_id) for r in [*chats, *completions, *collected]]


async def test_asking_several_and_collecting_take_another_users_upload_as_a_missing_one(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders

    with _client(uploads_api, b) as attacker:
        collection_id = make_collection(attacker, "Collecting", "2007.01282")
        against_a = _uses_of(attacker, b.upload["id"], a.upload["id"], collection_id)
        against_nothing = _uses_of(attacker, b.upload["id"], MISSING, collection_id)
        held = attacker.get(f"/api/collections/{collection_id}").json()
    async with mcp_client(uploads_api, b.key) as mcp:
        asked = [
            await mcp.call_tool(
                "ask_uploads", {"question": QUESTION, "upload_ids": [b.upload["id"], i]}
            )
            for i in (a.upload["id"], MISSING)
        ]

    assert against_a == against_nothing
    assert {status for status, _ in against_a} == {404}
    assert held["uploads"] == []
    assert all(result.is_error for result in asked)
    assert error_text(asked[0]).replace(a.upload["id"], "ID") == error_text(asked[1]).replace(
        MISSING, "ID"
    )
    assert a.upload["title"] not in error_text(asked[0])
