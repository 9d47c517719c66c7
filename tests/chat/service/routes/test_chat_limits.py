"""`POST /api/chat`'s limits: the rate, the streams per user, the question's and the
body's size, the database pool under many streams, the answer's tokens and length."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from chat.service.access.admission import Admission
from chat.service.access.ratelimit import StreamSlots, build_rate_limiter
from tests.chat.service.routes.conftest import FID, ask, conversation, me, one_answer_streaming
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
    wait_for,
)

pytestmark = pytest.mark.timeout(120)


def test_chat_rate_limit_answers_429_with_retry_after(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.services, "chat_limiter", build_rate_limiter("2/minute", None))
    with api.signed_in() as client:
        answered = [ask(client)[-1].name for _ in range(2)]
        refused = client.post("/api/chat", json={"message": FID})

    assert answered == ["done", "done"]
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert "limit" in refused.json()["detail"]


def test_concurrent_streams_per_user_are_capped(api: Api) -> None:
    original = api.services.slots
    api.services.slots = StreamSlots(1)
    api.fake.default_script = ChatScript(pieces=("slow",) * 100, delay=0.05)
    try:
        with api.signed_in() as client:
            with client.stream("POST", "/api/chat", json={"message": FID}) as first:
                # Keep the line iterator referenced: dropping it would close the stream.
                lines = first.iter_lines()
                next(line for line in lines if line.startswith("event: sources"))
                second = client.post("/api/chat", json={"message": FID})
            freed = wait_for(lambda: api.services.slots.open_count(me(client)) == 0)
    finally:
        api.services.slots = original

    assert second.status_code == 429
    assert "streams" in second.json()["detail"]
    assert freed


def test_a_question_the_full_line_cannot_take_is_a_503_with_retry_after(api: Api) -> None:
    admission = Admission(capacity=1, queue_size=0, per_user=0)
    with api.signed_in() as other, one_answer_streaming(api, admission):
        refused = other.post("/api/chat", json={"message": FID})
        held = admission.running

    assert refused.status_code == 503
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.json()["detail"].startswith("the server is busy")
    assert held == 1, "the refused question took no place"
    assert admission.running == 0


def test_a_question_in_line_is_answered_once_a_place_frees(api: Api) -> None:
    admission = Admission(capacity=1, queue_size=4, per_user=1)
    with api.signed_in() as other, ThreadPoolExecutor(1) as pool:
        with one_answer_streaming(api, admission):
            api.fake.default_script = ChatScript()
            waiting = pool.submit(ask, other)
            queued = wait_for(lambda: admission.waiting == 1)
        events = waiting.result(timeout=60)

    assert queued
    assert [e.name for e in events][:2] == ["meta", "sources"]
    assert events[-1].name == "done"


def test_too_long_question_is_422_with_a_clear_message(api: Api) -> None:
    with api.signed_in() as client:
        response = client.post("/api/chat", json={"message": "why? " * 1000})

    assert response.status_code == 422
    assert response.json()["detail"] == "the question is longer than 4000 characters"


def test_too_large_body_is_413(api: Api) -> None:
    with api.signed_in() as client:
        response = client.post(
            "/api/chat",
            content=b'{"message": "' + b"x" * 400_000 + b'"}',
            headers={"Content-Type": "application/json"},
        )

    assert response.status_code == 413
    assert "larger than" in response.json()["detail"]


@pytest.mark.parametrize("message", [" ", "   \n\t  ", "\u00a0\u2003"])
def test_a_blank_question_is_422_and_starts_no_conversation(api: Api, message: str) -> None:
    with api.signed_in() as client:
        response = client.post("/api/chat", json={"message": message})
        listed = client.get("/api/conversations").json()

    assert response.status_code == 422
    assert response.json()["detail"] == "the question is empty"
    assert listed == []


def test_more_open_streams_than_database_connections_all_finish(api: Api) -> None:
    # The engine pools 15 connections; a stream must not hold one while it streams.
    api.fake.default_script = ChatScript(pieces=tuple(f"w{i} " for i in range(30)), delay=0.05)
    clients = [api.key_client() for _ in range(7)]
    streams = 20

    def ask(n: int) -> list[str]:
        client = clients[n % len(clients)]
        with client.stream("POST", "/api/chat", json={"message": FID}, timeout=60) as response:
            if response.status_code != 200:
                return [f"status {response.status_code}"]
            return [event.name for event in read_events(response)]

    with ThreadPoolExecutor(max_workers=streams) as pool:
        outcomes = list(pool.map(ask, range(streams)))
    for client in clients:
        client.close()

    assert all(names[-1:] == ["done"] for names in outcomes), outcomes


def test_the_model_is_asked_for_at_most_max_answer_tokens(api: Api) -> None:
    with api.signed_in() as client:
        first = ask(client)
        ask(client, "How does it scale?", conversation_id=first[0].data["conversation_id"])

    condense, answer = (r.body for r in api.fake.chat_requests()[-2:])
    assert api.services.settings.max_answer_tokens == 1024
    assert answer["max_tokens"] == 1024
    assert condense["max_tokens"] == 1024


def test_an_answer_past_the_size_cap_stops_with_length_and_is_kept_at_the_cap(api: Api) -> None:
    # A server that ignores max_tokens: 20,000 characters against a cap of 16,000.
    api.fake.default_script = ChatScript(pieces=("wordwordw ",) * 2000, delay=0.002)

    with api.signed_in() as client:
        events = ask(client)
        saved = conversation(client, events)

    text = "".join(e.data["text"] for e in events if e.name == "delta")
    assert events[-1].name == "done"
    assert events[-1].data["finish_reason"] == "length"
    assert len(text) == api.services.settings.max_answer_chars == 16_000
    assert saved["messages"][-1]["content"] == text
    assert saved["messages"][-1]["status"] == "complete"
    assert api.fake.client_disconnected.wait(5)
