"""`POST /api/chat`'s stream through a real uvicorn, the fake upstream model behind it:
its events in order, a refusal, the saved answer and its checked citations."""

from __future__ import annotations

import pytest

from chat.rag.retrieval.relevance import NOT_SCHOLARLY
from tests.chat.service.routes.conftest import FID, ask, conversation
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(120)


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
