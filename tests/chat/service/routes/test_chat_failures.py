"""`POST /api/chat` when something fails: the upstream model mid-answer or at once, the
database when the answer is saved."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from sqlalchemy import event

from tests.chat.service.routes.conftest import ask, conversation
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)


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
