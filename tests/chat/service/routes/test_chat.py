"""`POST /api/chat` through a real uvicorn, with the fake upstream model behind it."""

from __future__ import annotations

import itertools
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from chat.rag.retrieval.relevance import NOT_SCHOLARLY
from chat.service.access.ratelimit import StreamSlots, build_rate_limiter
from chat.service.routes import chat as chat_route
from chat.service.storage.conversations import delete_conversation
from tests.fakes.openai import ChatScript
from tests.support.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    SseEvent,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    iter_events,
    read_events,
    wait_for,
)

pytestmark = pytest.mark.timeout(120)

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


def test_events_come_in_contract_order_with_anti_buffering_headers(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD encodes", " each passage", " separately."))

    with (
        api.signed_in() as client,
        client.stream("POST", "/api/chat", json={"message": FID}) as response,
    ):
        events = read_events(response)

    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-accel-buffering"] == "no"
    names = [e.name for e in events]
    assert names[:2] == ["meta", "sources"]
    assert set(names[2:-1]) == {"delta"}
    assert names[-1] == "done"
    assert set(events[0].data) == {"conversation_id", "message_id"}
    assert events[1].data["sources"][0]["n"] == 1
    assert "".join(e.data["text"] for e in events if e.name == "delta") == (
        "FiD encodes each passage separately."
    )
    assert events[-1].data["mode"] == "llm"
    assert (events[-1].data["refused"], events[-1].data["refusal_reason"]) == (False, None)


def test_an_everyday_question_is_refused_as_one_in_the_done_event(api: Api) -> None:
    asked = len(api.fake.chat_requests())

    with api.signed_in() as client:
        events = ask(client, message="Best pizza in Naples?")

    done = events[-1]
    assert done.name == "done"
    assert done.data["refused"] is True
    assert done.data["refusal_reason"] == NOT_SCHOLARLY
    assert events[1].data["sources"] == []
    assert len(api.fake.chat_requests()) == asked  # the model was not asked


def test_complete_answer_is_saved_with_sources_citations_and_usage(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("It concatenates", " them [arXiv:2007.01282]."))

    with api.signed_in() as client:
        events = ask(client, paper_ids=["2007.01282v2"])
        saved = conversation(client, events)

    assert saved["title"] == FID
    user, assistant = saved["messages"]
    assert (user["role"], user["content"]) == ("user", FID)
    assert assistant["status"] == "complete"
    assert assistant["content"] == "It concatenates them [arXiv:2007.01282]."
    assert assistant["citations"] == ["2007.01282"]
    assert {s["id"] for s in assistant["sources"]} == {"2007.01282"}
    with api.services.sessions() as session:
        from chat.service.storage.tables import Message

        record = session.get(Message, events[0].data["message_id"])
        assert record is not None
        assert record.model == "fake-chat"
        assert record.mode == "llm"
        assert record.prompt_version
        assert record.usage is not None
        assert record.timings is not None
        assert record.timings["total_ms"] > 0


def test_made_up_citations_are_removed_and_listed_as_dropped(api: Api) -> None:
    api.fake.default_script = ChatScript(
        pieces=("FiD [arXiv:2007.01282] beats", " RAG [arXiv:9999.99999].")
    )

    with api.signed_in() as client:
        events = ask(client, paper_ids=["2007.01282"])

    text = "".join(e.data["text"] for e in events if e.name == "delta")
    done = events[-1].data
    assert "9999.99999" not in text
    assert "[arXiv:2007.01282]" in text
    assert done["citations"] == ["2007.01282"]
    assert done["dropped_citations"] == ["9999.99999"]
    source_ids = {s["id"] for s in events[1].data["sources"]}
    assert set(done["citations"]) <= source_ids


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


def test_client_disconnect_cancels_upstream_and_saves_partial_answer(api: Api) -> None:
    pieces = tuple(f"word{i} " for i in range(200))
    api.fake.default_script = ChatScript(pieces=pieces, delay=0.05)
    seen: list[str] = []

    with api.signed_in() as client:
        with client.stream("POST", "/api/chat", json={"message": FID}) as response:
            for line in response.iter_lines():
                seen.append(line)
                if line.startswith("event: delta"):
                    break
        meta = next(line for line in seen if line.startswith("data:") and "message_id" in line)
        cancelled_upstream = api.fake.client_disconnected.wait(1.0)
        message_id = meta.split('"message_id": "')[1].split('"')[0]

        def status() -> str | None:
            with api.services.sessions() as session:
                from chat.service.storage.tables import Message

                record = session.get(Message, message_id)
                return record.status if record is not None else None

        saved = wait_for(lambda: status() == "cancelled", timeout=5)

    assert cancelled_upstream
    assert saved
    with api.services.sessions() as session:
        from chat.service.storage.tables import Message

        record = session.get(Message, message_id)
        assert record is not None
        assert record.content.startswith("word0")
        assert len(record.content.split()) < len(pieces)


def test_upstream_failure_mid_answer_ends_with_error_and_saves_it(api: Api) -> None:
    api.fake.default_script = ChatScript(
        pieces=("Partial", " answer", " never", " ends"), break_after=2
    )

    with api.signed_in() as client:
        events = ask(client)
        saved = conversation(client, events)

    names = [e.name for e in events]
    assert names[:2] == ["meta", "sources"]
    assert names[-1] == "error"
    assert "done" not in names
    assert events[-1].data["code"].startswith("upstream")
    assistant = saved["messages"][-1]
    assert assistant["status"] == "error"
    assert assistant["content"] == "Partial answer"


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
            freed = wait_for(lambda: api.services.slots.open_count(_me(client)) == 0)
    finally:
        api.services.slots = original

    assert second.status_code == 429
    assert "streams" in second.json()["detail"]
    assert freed


def _me(client: httpx.Client) -> str:
    user_id: str = client.get("/api/me").json()["id"]
    return user_id


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


def test_deleting_a_conversation_while_it_streams_frees_the_slot_and_says_so(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=tuple(f"w{i} " for i in range(40)), delay=0.02)
    original = api.services.slots
    api.services.slots = StreamSlots(1)
    try:
        with api.signed_in() as client:
            with client.stream("POST", "/api/chat", json={"message": FID}) as response:
                lines = response.iter_lines()
                meta = next(line for line in lines if line.startswith("data:"))
                conversation_id = meta.split('"conversation_id": "')[1].split('"')[0]
                removed = client.delete(f"/api/conversations/{conversation_id}")
                rest = list(lines)
            freed = wait_for(lambda: api.services.slots.open_count(_me(client)) == 0)
            api.fake.default_script = ChatScript()
            again = ask(client)
            gone = client.get(f"/api/conversations/{conversation_id}")
    finally:
        api.services.slots = original

    assert removed.status_code == 204
    assert "event: error" in rest
    assert any('"code": "conversation_deleted"' in line for line in rest)
    assert "event: done" not in rest
    assert freed
    assert again[-1].name == "done"
    assert gone.status_code == 404


def test_deleting_a_conversation_closes_the_models_stream_at_once(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delete stops the answer itself, not the answer's look at the database (made
    rare here): the model has sent a few of its 400 pieces when its client goes."""
    monkeypatch.setattr(chat_route, "DELETION_CHECK_S", 600.0)
    pieces = 400
    api.fake.default_script = ChatScript(pieces=tuple(f"w{i} " for i in range(pieces)), delay=0.02)

    with (
        api.signed_in() as client,
        client.stream("POST", "/api/chat", json={"message": FID}) as response,
    ):
        events = iter_events(response)
        meta = next(events)
        next(e for e in events if e.name == "delta")
        removed = client.delete(f"/api/conversations/{meta.data['conversation_id']}")
        rest = list(events)
    answer = api.fake.chat_requests()[-1]
    wait_for(lambda: api.fake.left_after(answer) is not None)

    assert removed.status_code == 204
    assert rest[-1].name == "error"
    assert rest[-1].data["code"] == "conversation_deleted"
    left = api.fake.left_after(answer)
    assert left is not None, "the upstream call was not closed"
    assert left < pieces / 4


def test_a_conversation_deleted_on_another_worker_stops_its_answer_and_the_model(
    api: Api,
) -> None:
    """A delete this worker did not see is found within a look at the database, not when
    the model is done: the model would have written 100 pieces over 20 seconds."""
    pieces = 100
    api.fake.default_script = ChatScript(pieces=tuple(f"w{i} " for i in range(pieces)), delay=0.2)

    with (
        api.signed_in() as client,
        client.stream("POST", "/api/chat", json={"message": FID}) as response,
    ):
        events = iter_events(response)
        meta = next(events)
        first = next(e for e in events if e.name == "delta")
        with api.services.sessions() as session:
            delete_conversation(session, _me(client), meta.data["conversation_id"])
        rest = list(events)
    answer = api.fake.chat_requests()[-1]
    wait_for(lambda: api.fake.left_after(answer) is not None)

    assert [e.name for e in rest][-1] == "error"
    assert rest[-1].data["code"] == "conversation_deleted"
    streamed = [first, *(e for e in rest if e.name == "delta")]
    assert len(streamed) < pieces / 2
    left = api.fake.left_after(answer)
    assert left is not None, "the upstream call was not closed"
    assert left < pieces / 2


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


@pytest.mark.parametrize("message", [" ", "   \n\t  ", "\u00a0\u2003"])
def test_a_blank_question_is_422_and_starts_no_conversation(api: Api, message: str) -> None:
    with api.signed_in() as client:
        response = client.post("/api/chat", json={"message": message})
        listed = client.get("/api/conversations").json()

    assert response.status_code == 422
    assert response.json()["detail"] == "the question is empty"
    assert listed == []


def test_an_upstream_failure_shows_a_code_and_a_generic_message_and_logs_the_detail(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    api.fake.default_script = ChatScript(fail_status=400, fail_message="tenant 42: quota hunter2")
    upstream_host = api.fake.base_url.split("//")[1].split("/")[0]

    with caplog.at_level("WARNING", logger="paperchat"), api.signed_in() as client:
        events = ask(client)

    error = events[-1]
    assert error.name == "error"
    assert error.data == {
        "code": "upstream_error",
        "message": "the language model failed to answer; try again",
    }
    assert upstream_host not in str(error.data)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "hunter2" in logged
    assert upstream_host in logged


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


def test_an_answer_the_database_cannot_save_ends_with_not_saved_and_is_kept_as_failed(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD encodes", " each passage."))

    def disk_full_for_answers(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("UPDATE messages") and "content" in statement:
            raise sqlite3.OperationalError("database or disk is full")

    with caplog.at_level("WARNING", logger="paperchat"), api.signed_in() as client:
        event.listen(api.services.engine, "before_cursor_execute", disk_full_for_answers)
        try:
            events = ask(client)
        finally:
            event.remove(api.services.engine, "before_cursor_execute", disk_full_for_answers)
        saved = conversation(client, events)

    names = [e.name for e in events]
    assert "".join(e.data["text"] for e in events if e.name == "delta") == (
        "FiD encodes each passage."
    )
    assert names[-1] == "error"
    assert "done" not in names
    assert events[-1].data["code"] == "not_saved"
    answer = saved["messages"][-1]
    assert (answer["status"], answer["content"]) == ("error", "")
    message_id = events[0].data["message_id"]
    logged = [r.getMessage() for r in caplog.records]
    assert any(f"cannot save answer {message_id}" in line for line in logged)
    assert any(f"answer {message_id} not saved" in line for line in logged)
