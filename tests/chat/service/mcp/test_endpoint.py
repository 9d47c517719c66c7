"""`/mcp`: the official MCP client against the running server, over Streamable HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from chat.service.access.accounts import get_user
from chat.service.access.admission import Admission
from chat.service.access.ratelimit import StreamSlots, build_rate_limiter
from tests.fakes.openai import ChatScript
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(300)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"
TOOLS = {
    "search_papers", "get_paper", "get_references", "get_citations", "related_papers",
    "retrieve", "ask", "compare_papers",
}  # fmt: skip
# The caller's own collections (tests/chat/service/mcp/test_collections.py).
COLLECTION_TOOLS = {
    "collections", "collection_papers", "add_to_collection", "ask_collection", "ask_uploads",
    "uploads",
}  # fmt: skip
# The caller's own notes (tests/chat/service/mcp/test_notes.py).
NOTE_TOOLS = {"notes", "add_note"}
# The caller's own questions that keep watch (tests/chat/service/mcp/test_watch_tools.py).
WATCH_TOOLS = {"keep_watch", "watches"}
# A PDF page's annotations (tests/chat/service/mcp/test_annotations.py).
ANNOTATION_TOOLS = {"page_annotations"}
# A JSON-RPC tools/call as a client sends it, for the tests that look at the HTTP exchange.
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_paper", "arguments": {"paper_id": "2007.01282"}},
}
JSON_RPC_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-06-18",
}


@asynccontextmanager
async def mcp_client(api: Api, key: str | None = None, mode: str = "auto") -> AsyncIterator[Client]:
    token = key or api.key_for(api.new_user())
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    transport = streamable_http_client(f"{api.base_url}/mcp", http_client=http)
    async with http, Client(transport, mode=mode, read_timeout_seconds=60) as client:
        yield client


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    return dict(result.structured_content)


def error_text(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_read_only_tools_are_listed_with_their_corpus(api: Api, mode: str) -> None:
    stats = api.services.index.catalog.stats()

    async with mcp_client(api, mode=mode) as client:
        listed = await client.list_tools()

    assert {
        tool.name for tool in listed.tools
    } == TOOLS | COLLECTION_TOOLS | NOTE_TOOLS | WATCH_TOOLS | ANNOTATION_TOOLS
    for tool in (t for t in listed.tools if t.name in TOOLS):
        assert f"the {stats['papers']} papers" in (tool.description or "")
        assert f"full text of {stats['papers_with_fulltext']} PDFs" in (tool.description or "")
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True


async def test_search_papers_finds_the_paper_within_the_limit(api: Api) -> None:
    async with mcp_client(api) as client:
        result = await client.call_tool("search_papers", {"query": "Fusion-in-Decoder", "limit": 3})

    hits = structured(result)["results"]
    assert 1 <= len(hits) <= 3
    assert "2007.01282" in [hit["id"] for hit in hits]


async def test_search_papers_filters_by_category(api: Api) -> None:
    arguments = {"query": "retrieval", "limit": 10, "categories": ["cs.CL"]}

    async with mcp_client(api) as client:
        result = await client.call_tool("search_papers", arguments)
        unfiltered = await client.call_tool("search_papers", {"query": "retrieval", "limit": 10})

    catalog = api.services.index.catalog

    def categories(hits: CallToolResult) -> list[tuple[str, ...]]:
        papers = [catalog.get_paper(hit["id"]) for hit in structured(hits)["results"]]
        return [tuple(p.categories) if p is not None else () for p in papers]

    assert "2007.01282" in [hit["id"] for hit in structured(result)["results"]]
    assert all("cs.CL" in c for c in categories(result))
    assert not all("cs.CL" in c for c in categories(unfiltered))


async def test_get_paper_gives_the_record_and_an_unknown_id_is_a_tool_error(api: Api) -> None:
    async with mcp_client(api) as client:
        found = await client.call_tool("get_paper", {"paper_id": "arXiv:2007.01282v2"})
        unknown = await client.call_tool("get_paper", {"paper_id": "9999.99999"})

    paper = structured(found)
    assert paper["id"] == "2007.01282"
    assert paper["has_fulltext"] is True
    assert paper["url"] == "https://arxiv.org/abs/2007.01282"
    assert unknown.is_error
    assert "no paper '9999.99999' in the index" in error_text(unknown)


async def test_retrieve_gives_passages_with_scores_ids_and_pages(api: Api) -> None:
    arguments = {"query": FID, "k": 4, "paper_ids": ["2007.01282"]}

    async with mcp_client(api) as client:
        result = await client.call_tool("retrieve", arguments)

    passages = structured(result)["passages"]
    assert 1 <= len(passages) <= 4
    assert {p["id"] for p in passages} == {"2007.01282"}
    assert all(p["citation"] == "[arXiv:2007.01282]" for p in passages)
    assert all(p["score"] > 0 and p["chunk_id"].startswith("2007.01282#") for p in passages)
    assert any(p["kind"] == "fulltext" and p["page"] >= 1 for p in passages)
    assert [p["n"] for p in passages] == list(range(1, len(passages) + 1))


async def test_ask_answers_with_verified_citations_and_sources(api: Api) -> None:
    api.fake.default_script = ChatScript(
        pieces=("FiD fuses in the decoder [arXiv:2007.01282]", " as [arXiv:9999.99999] says.")
    )

    async with mcp_client(api) as client:
        result = await client.call_tool("ask", {"question": FID, "paper_ids": ["2007.01282"]})

    answer = structured(result)
    assert answer["answer"] == "FiD fuses in the decoder [arXiv:2007.01282] as says."
    assert answer["citations"] == ["2007.01282"]
    assert answer["dropped_citations"] == ["9999.99999"]
    assert {s["id"] for s in answer["sources"]} == {"2007.01282"}
    assert answer["mode"] == "llm"


async def test_ask_refuses_when_the_papers_do_not_cover_the_question(api: Api) -> None:
    calls = len(api.fake.chat_requests())

    async with mcp_client(api) as client:
        result = await client.call_tool("ask", {"question": "What is the capital of Mongolia?"})

    answer = structured(result)
    assert answer["sources"] == []
    assert answer["citations"] == []
    assert "do not" in answer["answer"] or "not" in answer["answer"].lower()
    assert len(api.fake.chat_requests()) == calls  # no model was asked


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("   ", "the question is empty"),
        ("x" * 4001, "the question is longer than 4000 characters"),
    ],
)
async def test_ask_checks_the_question_as_the_chat_routes_do(
    api: Api, question: str, message: str
) -> None:
    calls = len(api.fake.chat_requests())

    async with mcp_client(api) as client:
        result = await client.call_tool("ask", {"question": question})

    assert result.is_error
    assert message in error_text(result)
    assert len(api.fake.chat_requests()) == calls


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("search_papers", {"query": "attention", "limit": 51}, "limit"),
        ("search_papers", {"query": ""}, "query"),
        ("search_papers", {"query": "attention", "published_from": "last year"}, "published_from"),
        ("retrieve", {"query": "attention", "k": 21}, "k"),
        ("retrieve", {"query": "attention", "paper_ids": ["2007.01282"] * 51}, "paper_ids"),
        ("get_paper", {"paper_id": "x" * 65}, "paper_id"),
        ("get_paper", {}, "paper_id"),
    ],
)
async def test_arguments_outside_the_schema_are_refused(
    api: Api, tool: str, arguments: dict[str, Any], named: str
) -> None:
    async with mcp_client(api) as client:
        result = await client.call_tool(tool, arguments)

    assert result.is_error
    assert f"{tool}" in error_text(result)
    assert f"\n{named}\n" in error_text(result)


@pytest.mark.parametrize(
    ("dates", "named", "words"),
    [
        ({"published_from": "2020-13-01"}, "published_from", "'2020-13-01' is not a date"),
        ({"published_to": "2021-02-30"}, "published_to", "'2021-02-30' is not a date"),
        ({"published_from": "last year"}, "published_from", "String should match pattern"),
        (
            {"published_from": "2021-06-01", "published_to": "2020-06-01"},
            "published_from",
            "published_from is after published_to",
        ),
    ],
    ids=["month", "day", "not-a-date", "from-after-to"],
)
async def test_a_bad_date_filter_is_refused_by_the_tools_as_by_api_retrieve(
    api: Api, dates: dict[str, str], named: str, words: str
) -> None:
    with api.key_client() as http:
        retrieved = http.post("/api/retrieve", json={"query": "attention", **dates})

    async with mcp_client(api) as client:
        searched = await client.call_tool("search_papers", {"query": "attention", **dates})
        passages = await client.call_tool("retrieve", {"query": "attention", **dates})

    assert retrieved.status_code == 422
    assert named in retrieved.json()["detail"]
    assert words in retrieved.json()["detail"]
    for result in (searched, passages):
        assert result.is_error
        assert named in error_text(result)
        assert words in error_text(result)


def test_a_missing_or_bad_key_is_refused_before_any_tool_runs(api: Api) -> None:
    email = api.new_user()
    revoked = api.key_for(email)
    with api.signed_in(email) as browser:
        browser.delete(f"/api/keys/{browser.get('/api/keys').json()[0]['id']}")
        cookie_only = browser.post("/mcp", json=CALL, headers=JSON_RPC_HEADERS)
    keys = [None, "pc_not-a-key", revoked, "not-even-the-shape"]

    with api.client() as client:
        answers = [
            client.post("/mcp", json=CALL, headers=JSON_RPC_HEADERS | _bearer(key)) for key in keys
        ]

    for response in [cookie_only, *answers]:
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert "result" not in response.text


async def test_the_official_client_fails_on_a_bad_key(api: Api) -> None:
    with pytest.raises(BaseExceptionGroup) as raised:
        async with mcp_client(api, key="pc_wrong-key-0123456789abcdef") as client:
            await client.list_tools()

    assert raised.group_contains(MCPError, match="error response", depth=None)


def test_tool_calls_count_against_the_keys_own_budget(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.services, "api_limiter", build_rate_limiter("2/minute", None))
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}

    with api.key_client() as client:
        calls = [client.post("/mcp", json=CALL, headers=JSON_RPC_HEADERS) for _ in range(3)]
        listed = client.post("/mcp", json=listing, headers=JSON_RPC_HEADERS)

    assert [r.status_code for r in calls] == [200, 200, 429]
    assert int(calls[2].headers["Retry-After"]) >= 1
    assert "too many requests with this API key" in calls[2].json()["detail"]
    assert json.loads(calls[0].text)["result"]["structuredContent"]["id"] == "2007.01282"
    assert listed.status_code == 200  # listing the tools is not a call


async def test_an_ask_holds_one_of_the_users_stream_slots(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    slots = StreamSlots(1)
    monkeypatch.setattr(api.services, "slots", slots)
    email = api.new_user()
    headers = JSON_RPC_HEADERS | _bearer(api.key_for(email))
    with api.services.sessions() as session:
        user_id = get_user(session, email).id
    ask = {**CALL, "params": {"name": "ask", "arguments": {"question": FID}}}

    async with httpx.AsyncClient(base_url=api.base_url, headers=headers, timeout=60) as client:
        async with slots.acquire(user_id):
            busy = await client.post("/mcp", json=ask)
            other_tool = await client.post("/mcp", json=CALL)
        freed = await client.post("/mcp", json=ask)

    assert busy.status_code == 429
    assert busy.json()["detail"] == "too many open answers: at most 1 at a time"
    assert other_tool.status_code == 200
    assert freed.status_code == 200
    assert "structuredContent" in freed.json()["result"]
    assert slots.open_count(user_id) == 0


def test_the_apps_middlewares_hold_on_the_mcp_path(api: Api) -> None:
    limit = api.services.limits.max_body_bytes
    huge = {**CALL, "params": {"name": "ask", "arguments": {"question": "x" * limit}}}

    with api.key_client() as client:
        too_big = client.post("/mcp", json=huge, headers=JSON_RPC_HEADERS)
        answered = client.post("/mcp", json=CALL, headers=JSON_RPC_HEADERS)
        wrong_method = client.put("/mcp", json=CALL, headers=JSON_RPC_HEADERS)

    assert too_big.status_code == 413
    assert answered.status_code == 200
    assert answered.headers["X-Request-ID"]
    assert wrong_method.status_code == 405


def _bearer(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


async def test_compare_papers_gives_the_table_and_names_unknown_papers(api: Api) -> None:
    api.fake.script_chat(ChatScript(pieces=("Exact match (EM) [arXiv:2007.01282]",)))
    arguments = {"paper_ids": ["arXiv:2007.01282v2"], "aspects": ["metrics"]}

    async with mcp_client(api) as client:
        result = await client.call_tool("compare_papers", arguments)
        unknown = await client.call_tool("compare_papers", {"paper_ids": ["9999.99999"]})

    table = structured(result)
    assert table["aspects"] == ["metrics"]
    assert [row["paper_id"] for row in table["rows"]] == ["2007.01282"]
    cell = table["rows"][0]["cells"]["metrics"]
    assert cell == {"text": "Exact match (EM)", "citation": "[arXiv:2007.01282]"}
    assert unknown.is_error
    assert "no such paper in the index: 9999.99999" in error_text(unknown)


async def test_an_ask_waits_in_the_workers_line_and_is_refused_when_it_is_full(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    admission = Admission(capacity=1, queue_size=0, per_user=1)
    monkeypatch.setattr(api.services, "admission", admission)
    email = api.new_user()
    headers = JSON_RPC_HEADERS | _bearer(api.key_for(email))
    ask = {**CALL, "params": {"name": "ask", "arguments": {"question": FID}}}

    async with httpx.AsyncClient(base_url=api.base_url, headers=headers, timeout=60) as client:
        async with admission.admitted("someone else"):
            busy = await client.post("/mcp", json=ask)
            other_tool = await client.post("/mcp", json=CALL)
        freed = await client.post("/mcp", json=ask)

    assert busy.status_code == 503
    assert int(busy.headers["Retry-After"]) >= 1
    assert busy.json()["detail"].startswith("the server is busy")
    assert other_tool.status_code == 200
    assert freed.status_code == 200
    assert admission.running == 0
