"""Saving, listing and deleting questions that keep watch: each user's own, bad input
refused with its reason and nothing saved."""

from __future__ import annotations

import pytest

from tests.chat.service.routes.watches.conftest import (
    DIPOLES,
    PHOTONS,
    WatchServer,
    save,
)
from tests.support.running.server import fake_llm_fixture  # noqa: F401 - a pytest fixture, used by name

pytestmark = pytest.mark.timeout(300)


def test_signed_out_or_without_csrf_is_refused(watch_server: WatchServer) -> None:
    api = watch_server.api
    with api.client() as anonymous, api.signed_in() as browser:
        signed_out = anonymous.post("/api/watches", json={"question": PHOTONS})
        listed = anonymous.get("/api/watches")
        browser.headers.pop("X-CSRF-Token")
        no_csrf = browser.post("/api/watches", json={"question": PHOTONS})

    assert (signed_out.status_code, listed.status_code, no_csrf.status_code) == (401, 401, 403)


def test_a_saved_question_keeps_its_scope_and_answer_and_is_deleted(
    watch_server: WatchServer,
) -> None:
    with watch_server.api.key_client() as client:
        answered = save(client, PHOTONS)
        unanswered = save(client, f"  {DIPOLES} ", paper_ids=["0704.0001"])
        listed = client.get("/api/watches").json()["watches"]
        deleted = client.delete(f"/api/watches/{answered['id']}")
        gone = client.get(f"/api/watches/{answered['id']}")
        deleted_again = client.delete(f"/api/watches/{answered['id']}")
        after = client.get("/api/watches").json()["watches"]

    assert answered["question"] == PHOTONS
    assert answered["scope"] == {"paper_ids": [], "author": None, "collection_id": None}
    assert answered["sources"] > 0
    assert answered["news"] == []
    assert unanswered["question"] == DIPOLES
    assert unanswered["scope"]["paper_ids"] == ["0704.0001"]
    assert [w["id"] for w in listed] == [answered["id"], unanswered["id"]]
    assert (deleted.status_code, gone.status_code, deleted_again.status_code) == (204, 404, 404)
    assert [w["id"] for w in after] == [unanswered["id"]]


def test_bad_questions_and_scopes_are_refused_and_nothing_is_saved(
    watch_server: WatchServer,
) -> None:
    api = watch_server.api
    too_long = "why " * api.services.limits.max_question_chars
    with api.key_client() as client, api.key_client() as other:
        theirs = other.post("/api/collections", json={"name": "theirs"}).json()["id"]
        answers = {
            "too long": client.post("/api/watches", json={"question": too_long}),
            "blank": client.post("/api/watches", json={"question": "   "}),
            "no question": client.post("/api/watches", json={}),
            "unknown collection": client.post(
                "/api/watches", json={"question": PHOTONS, "collection_id": "nope"}
            ),
            "another's collection": client.post(
                "/api/watches", json={"question": PHOTONS, "collection_id": theirs}
            ),
            "unknown author": client.post(
                "/api/watches", json={"question": PHOTONS, "author": "Nobody Atall"}
            ),
        }
        listed = client.get("/api/watches").json()["watches"]

    statuses = {what: answer.status_code for what, answer in answers.items()}
    assert statuses == {
        "too long": 422,
        "blank": 422,
        "no question": 422,
        "unknown collection": 404,
        "another's collection": 404,
        "unknown author": 404,
    }
    assert "longer than" in answers["too long"].json()["detail"]
    assert answers["unknown collection"].json() == {"detail": "no collection 'nope'"}
    assert listed == []


def test_another_users_saved_question_is_a_404_to_them(watch_server: WatchServer) -> None:
    api = watch_server.api
    with api.key_client() as owner, api.key_client() as stranger:
        watch = save(owner, PHOTONS)
        seen = stranger.get(f"/api/watches/{watch['id']}")
        deleted = stranger.delete(f"/api/watches/{watch['id']}")
        listed = stranger.get("/api/watches").json()["watches"]
        still = owner.get(f"/api/watches/{watch['id']}")

    assert (seen.status_code, deleted.status_code) == (404, 404)
    assert seen.json() == {"detail": f"no saved question {watch['id']!r}"}
    assert listed == []
    assert still.status_code == 200
