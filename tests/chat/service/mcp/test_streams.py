"""`GET /mcp`, the server-to-client event stream (and `subscriptions/listen`, its successor):
one of the user's stream slots while it is open, given back when the client leaves or the
stream idles out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import httpx
import pytest

from chat.service.access.accounts import get_user
from chat.service.access.ratelimit import StreamSlots
from tests.support.running.server import Api, wait_for

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

EVENT_STREAM = {"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
# `subscriptions/listen` as a client of MCP 2026-07-28 sends it: its answer is an event stream.
MODERN = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "subscriptions/listen",
}
LISTEN = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "subscriptions/listen",
    "params": {
        "notifications": {"toolsListChanged": True},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    },
}


@dataclass
class Streamer:
    """A user with an API key, and the stream slots the server counts them in."""

    api: Api
    user_id: str
    key: str
    slots: StreamSlots

    @asynccontextmanager
    async def client(self) -> AsyncIterator[httpx.AsyncClient]:
        headers = EVENT_STREAM | {"Authorization": f"Bearer {self.key}"}
        async with httpx.AsyncClient(
            base_url=self.api.base_url, headers=headers, timeout=30
        ) as client:
            yield client


def _streamer(api: Api, monkeypatch: pytest.MonkeyPatch, slots: int) -> Streamer:
    counted = StreamSlots(slots)
    monkeypatch.setattr(api.services, "slots", counted)
    email = api.new_user()
    with api.services.sessions() as session:
        user_id = get_user(session, email).id
    return Streamer(api, user_id, api.key_for(email), counted)


async def test_streams_beyond_the_users_slots_are_refused(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamer = _streamer(api, monkeypatch, slots=2)

    with anyio.fail_after(60):  # a stream the server does not refuse never ends
        async with (
            streamer.client() as client,
            client.stream("GET", "/mcp") as first,
            client.stream("GET", "/mcp") as second,
        ):
            third = await client.get("/mcp")
            held = streamer.slots.open_count(streamer.user_id)

    assert [first.status_code, second.status_code] == [200, 200]
    assert first.headers["Content-Type"].startswith("text/event-stream")
    assert held == 2
    assert third.status_code == 429
    assert third.json() == {"detail": "too many open streams: at most 2 at a time"}
    assert third.headers["Retry-After"] == "1"


async def test_a_stream_the_client_closes_gives_its_slot_back(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamer = _streamer(api, monkeypatch, slots=1)

    with anyio.fail_after(60):  # a stream the server does not refuse never ends
        async with streamer.client() as client:
            async with client.stream("GET", "/mcp") as first:
                while_open = await client.get("/mcp")
            freed = wait_for(lambda: streamer.slots.open_count(streamer.user_id) == 0)
            async with client.stream("GET", "/mcp") as again:
                reopened = again.status_code

    assert first.status_code == 200
    assert while_open.status_code == 429
    assert freed
    assert reopened == 200


async def test_an_idle_stream_ends_after_the_timeout_and_gives_its_slot_back(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamer = _streamer(api, monkeypatch, slots=1)
    short = api.services.settings.model_copy(update={"mcp_idle_timeout_s": 0.5})
    monkeypatch.setattr(api.services, "settings", short)

    with anyio.fail_after(60):  # pings would keep a stream that never ends open
        async with streamer.client() as client, client.stream("GET", "/mcp") as stream:
            body = await stream.aread()

    assert stream.status_code == 200
    assert [line for line in body.splitlines() if line and not line.startswith(b":")] == []
    assert wait_for(lambda: streamer.slots.open_count(streamer.user_id) == 0)


async def test_a_listen_call_is_a_stream_too_and_idles_out_after_its_acknowledgement(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamer = _streamer(api, monkeypatch, slots=1)
    short = api.services.settings.model_copy(update={"mcp_idle_timeout_s": 0.5})
    monkeypatch.setattr(api.services, "settings", short)

    with anyio.fail_after(60):
        async with (
            streamer.client() as client,
            client.stream("POST", "/mcp", json=LISTEN, headers=MODERN) as listening,
        ):
            while_open = await client.get("/mcp")
            body = await listening.aread()

    assert listening.status_code == 200
    assert while_open.status_code == 429
    assert b"notifications/subscriptions/acknowledged" in body
    assert wait_for(lambda: streamer.slots.open_count(streamer.user_id) == 0)
