"""Conversations through `POST /api/chat`: follow-ups carry their history upstream, in
order and within budget, even asked at once; another user's is 404; listing, deleting."""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import event

from chat.service.access.ratelimit import StreamSlots
from tests.chat.service.routes.conftest import FID, ask, conversation
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    SseEvent,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(120)


def test_follow_up_sends_the_conversation_history_upstream(api: Api) -> None:
    api.fake.script_chat(
        ChatScript(pieces=("FiD encodes passages independently.",)),
        ChatScript(pieces=("How does Fusion-in-Decoder scale with more passages?",)),
        ChatScript(pieces=("It scales well.",)),
    )

    with api.signed_in() as client:
        first = ask(client)
        second = ask(client, "How does it scale?", conversation_id=first[0].data["conversation_id"])
        saved = conversation(client, second)

    assert second[0].data["conversation_id"] == first[0].data["conversation_id"]
    assert second[-1].name == "done"
    answer_request = api.fake.chat_requests()[-1].body
    contents = " ".join(str(m["content"]) for m in answer_request["messages"])
    assert "FiD encodes passages independently." in contents
    assert [m["role"] for m in saved["messages"]] == ["user", "assistant", "user", "assistant"]


def test_a_follow_up_after_a_long_answer_sends_history_within_the_token_budget(api: Api) -> None:
    long_answer = ("wordwordw ",) * 1500
    api.fake.script_chat(
        ChatScript(pieces=long_answer),
        ChatScript(pieces=("How does Fusion-in-Decoder scale with more passages?",)),
        ChatScript(pieces=("It scales well.",)),
    )

    with api.signed_in() as client:
        first = ask(client)
        ask(client, "How does it scale?", conversation_id=first[0].data["conversation_id"])

    condense, answer = (r.body for r in api.fake.chat_requests()[-2:])
    history = [m["content"] for m in answer["messages"][1:-1]]
    budget_bytes = api.services.settings.history_tokens * 4
    assert len("".join(history).encode()) <= budget_bytes
    assert history[0] == FID
    assert history[1].startswith("wordwordw wordwordw")
    assert history[1].endswith(" […]")
    assert len(condense["messages"][0]["content"].encode()) <= budget_bytes + 2000


def test_another_users_conversation_is_404_for_get_delete_and_continue(api: Api) -> None:
    with api.signed_in() as alice, api.signed_in() as bob:
        events = ask(alice)
        conversation_id = events[0].data["conversation_id"]
        read = bob.get(f"/api/conversations/{conversation_id}")
        removed = bob.delete(f"/api/conversations/{conversation_id}")
        continued = bob.post(
            "/api/chat", json={"message": "And then?", "conversation_id": conversation_id}
        )
        bobs_list = bob.get("/api/conversations").json()
        still_there = alice.get(f"/api/conversations/{conversation_id}")

    assert [read.status_code, removed.status_code, continued.status_code] == [404, 404, 404]
    assert read.json() == {"detail": f"no conversation {conversation_id!r}"}
    assert bobs_list == []
    assert still_there.status_code == 200
    assert len(still_there.json()["messages"]) == 2


def test_conversations_are_listed_newest_first_and_can_be_deleted(api: Api) -> None:
    with api.signed_in() as client:
        first = ask(client, "What is knowledge distillation?")[0].data["conversation_id"]
        second = ask(client, FID)[0].data["conversation_id"]
        listed = client.get("/api/conversations").json()
        removed = client.delete(f"/api/conversations/{first}")
        after = client.get("/api/conversations").json()
        gone = client.get(f"/api/conversations/{first}")

    assert [c["id"] for c in listed] == [second, first]
    assert listed[1]["title"] == "What is knowledge distillation?"
    assert removed.status_code == 204
    assert [c["id"] for c in after] == [second]
    assert gone.status_code == 404


def test_simultaneous_follow_ups_in_one_conversation_are_all_answered(api: Api) -> None:
    original = api.services.slots
    api.services.slots = StreamSlots(30)
    follow_ups = 30
    try:
        with api.signed_in() as client:
            conversation_id = ask(client)[0].data["conversation_id"]

            def follow_up(n: int) -> str:
                body = {"message": f"And what about {n}?", "conversation_id": conversation_id}
                with client.stream("POST", "/api/chat", json=body, timeout=60) as response:
                    if response.status_code != 200:
                        return f"status {response.status_code}"
                    return read_events(response)[-1].name

            with ThreadPoolExecutor(max_workers=follow_ups) as pool:
                outcomes = list(pool.map(follow_up, range(follow_ups)))
            saved = conversation(client, [SseEvent("meta", {"conversation_id": conversation_id})])
    finally:
        api.services.slots = original

    assert outcomes == ["done"] * follow_ups
    assert len(saved["messages"]) == 2 + 2 * follow_ups


def test_of_two_follow_ups_asked_at_once_the_second_is_asked_after_the_first(api: Api) -> None:
    # Both reach the conversation's lock before either takes it: the one numbered second
    # must be asked with the other's question in its history.
    api.fake.default_script = ChatScript(pieces=(FID,))
    questions = (
        "Which datasets is Fusion-in-Decoder evaluated on?",
        "How many passages does Fusion-in-Decoder read?",
    )
    at_the_lock = threading.Barrier(len(questions), timeout=30)
    arrivals = itertools.count()

    def meet_at_the_lock(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("UPDATE conversations") and next(arrivals) < len(questions):
            at_the_lock.wait()

    with api.signed_in() as client:
        conversation_id = ask(client)[0].data["conversation_id"]
        event.listen(api.services.engine, "before_cursor_execute", meet_at_the_lock)
        try:
            with ThreadPoolExecutor(max_workers=len(questions)) as pool:
                asked = list(
                    pool.map(lambda q: ask(client, q, conversation_id=conversation_id), questions)
                )
        finally:
            event.remove(api.services.engine, "before_cursor_execute", meet_at_the_lock)
        saved = conversation(client, asked[0])

    assert [events[-1].name for events in asked] == ["done", "done"]
    first, second = (m["content"] for m in saved["messages"][2::2])
    assert {first, second} == set(questions)
    prompt = next(r.body["messages"] for r in api.fake.chat_requests() if _asks(r.body, second))
    history = [m["content"] for m in prompt[1:-1]]
    assert history[0] == FID
    assert first in history


def _asks(body: dict[str, Any], question: str) -> bool:
    """Whether `body` is the answer prompt for `question` (not its rewrite)."""
    messages = body["messages"]
    return messages[0]["role"] == "system" and question in messages[-1]["content"]
