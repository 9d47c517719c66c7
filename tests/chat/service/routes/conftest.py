"""What the chat route tests share: the question they ask and how they ask it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from chat.service.access.admission import Admission
from tests.fakes.openai import ChatScript
from tests.support.running.server import Api, SseEvent, read_events, wait_for

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


@contextmanager
def one_answer_streaming(api: Api, admission: Admission) -> Iterator[None]:
    """While inside, `admission` decides and one slow answer holds its one place."""
    original = api.services.admission
    api.services.admission = admission
    api.fake.default_script = ChatScript(pieces=("slow",) * 100, delay=0.05)
    try:
        with (
            api.signed_in() as client,
            client.stream("POST", "/api/chat", json={"message": FID}) as first,
        ):
            # Keep the line iterator referenced: dropping it would close the stream.
            lines = first.iter_lines()
            # Its first words: the upstream call is made, with the slow script.
            next(line for line in lines if line.startswith("event: delta"))
            yield
        wait_for(lambda: admission.running == 0)
    finally:
        api.services.admission = original
