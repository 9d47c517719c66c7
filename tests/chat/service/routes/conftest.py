"""What the chat route tests share: the question they ask and how they ask it."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.running.server import SseEvent, read_events

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


def ask(client: httpx.Client, message: str = FID, **extra: Any) -> list[SseEvent]:
    with client.stream("POST", "/api/chat", json={"message": message, **extra}) as response:
        assert response.status_code == 200, response.read()
        return read_events(response)


def conversation(client: httpx.Client, events: list[SseEvent]) -> dict[str, Any]:
    response = client.get(f"/api/conversations/{events[0].data['conversation_id']}")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def me(client: httpx.Client) -> str:
    """The id of the user `client` is signed in as."""
    user_id: str = client.get("/api/me").json()["id"]
    return user_id
