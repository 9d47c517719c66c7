"""Asking one's own upload (`upload_ids` in `POST /api/chat` and `/v1/chat/completions`):
the answer is drawn from that PDF's own index alone and cites it as a document
(`[doc:<id>]`); another user's upload, or one not ready, is a 404 as a missing one is.
Several uploads, and uploads beside the library: test_several.py."""

from __future__ import annotations

import pytest

from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    Uploader,
    uploaders_fixture,
    uploads_api_fixture,
)
from tests.fakes.openai import ChatScript
from tests.support.running.server import Api, read_events

pytestmark = pytest.mark.timeout(900)

MISSING = "00000000-0000-4000-8000-000000000000"
QUESTION = (
    "Among the surveyed papers that performed human evaluation of long-form summaries, "
    "how many carried out any kind of statistical analysis?"
)


def test_the_owner_asks_their_upload_and_the_answer_cites_it_as_a_document(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    _, b = uploaders
    uploads_api.fake.default_script = ChatScript(
        pieces=(f"Just 12 papers did [doc:{b.doc_id}]", " as [arXiv:2007.01282] says.")
    )
    body = {"message": QUESTION, "upload_ids": [b.upload["id"]]}

    with (
        b.client(uploads_api) as owner,
        owner.stream("POST", "/api/chat", json=body) as streamed,
    ):
        events = read_events(streamed)

    sources = next(e for e in events if e.name == "sources").data["sources"]
    done = events[-1]
    text = "".join(e.data["text"] for e in events if e.name == "delta")
    assert streamed.status_code == 200
    assert sources
    assert {s["id"] for s in sources} == {b.doc_id}
    assert any(s["page"] == 3 for s in sources)
    assert done.name == "done"
    assert done.data["citations"] == [b.doc_id]
    assert done.data["dropped_citations"] == ["2007.01282"]
    assert text.startswith(f"Just 12 papers did [doc:{b.doc_id}]")


def test_another_users_upload_is_asked_about_as_a_missing_one(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders

    with a.client(uploads_api) as attacker:
        theirs = attacker.post(
            "/api/chat", json={"message": QUESTION, "upload_ids": [b.upload["id"]]}
        )
        missing = attacker.post("/api/chat", json={"message": QUESTION, "upload_ids": [MISSING]})

    assert theirs.status_code == 404
    assert theirs.text.replace(b.upload["id"], "ID") == missing.text.replace(MISSING, "ID")


def test_v1_answers_the_owner_from_their_upload_and_no_one_else(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader]
) -> None:
    a, b = uploaders
    uploads_api.fake.default_script = ChatScript(pieces=(f"Just 12 papers [doc:{b.doc_id}].",))
    body = {
        "model": "paperchat",
        "messages": [{"role": "user", "content": QUESTION}],
        "upload_ids": [b.upload["id"]],
    }

    with b.client(uploads_api) as owner:
        answered = owner.post("/v1/chat/completions", json=body)
    with a.client(uploads_api) as attacker:
        refused = attacker.post("/v1/chat/completions", json=body)

    assert answered.status_code == 200, answered.text
    assert {s["id"] for s in answered.json()["sources"]} == {b.doc_id}
    assert answered.json()["citations"] == [b.doc_id]
    assert refused.status_code == 404
    assert "error" in refused.json()
    assert b.doc_id not in refused.text
