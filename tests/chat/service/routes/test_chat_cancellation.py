"""`POST /api/chat` stopped before its end: the client goes away or its conversation is
deleted, here or on another worker; the model's stream closes and the slot frees."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from sqlalchemy import event

from chat.service.access.ratelimit import StreamSlots
from chat.service.routes import chat as chat_route
from chat.service.storage.conversations import delete_conversation
from tests.chat.service.routes.conftest import FID, ask, me
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    iter_events,
    wait_for,
)

pytestmark = pytest.mark.timeout(120)


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
            freed = wait_for(lambda: api.services.slots.open_count(me(client)) == 0)
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
            delete_conversation(session, me(client), meta.data["conversation_id"])
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


def test_a_worker_looks_for_the_deletes_of_all_its_answers_in_one_query(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every look in the database names every answer streaming (four here), so that the
    worker asks once per `DELETION_CHECK_S`, not once per answer."""
    monkeypatch.setattr(chat_route, "DELETION_CHECK_S", 0.2)
    api.fake.default_script = ChatScript(pieces=tuple(f"w{i} " for i in range(300)), delay=0.05)
    bound: list[set[Any]] = []

    def record(*_: Any, parameters: Any, **__: Any) -> None:
        bound.append(set(parameters) if isinstance(parameters, tuple) else set())

    with ExitStack() as streams:
        answers, events = set(), []
        for _ in range(4):
            client = streams.enter_context(api.signed_in())
            response = streams.enter_context(
                client.stream("POST", "/api/chat", json={"message": FID})
            )
            # Kept referenced: dropping the iterator would close the stream.
            events.append(iter_events(response))
            answers.add(next(events[-1]).data["message_id"])
        event.listen(api.services.engine, "before_cursor_execute", record, named=True)
        try:
            looked = wait_for(lambda: len([p for p in bound if p & answers]) >= 3, timeout=20)
        finally:
            event.remove(api.services.engine, "before_cursor_execute", record)
    looks = [parameters for parameters in bound if parameters & answers]

    assert looked
    assert all(answers <= parameters for parameters in looks[:3])
