"""`/api/notes` over HTTP: a note made, listed (all, per paper, per collection), found by its
words, changed and deleted; hostile text kept as text, bounded, and refused signed out."""

from __future__ import annotations

import pytest

from chat.service.routes.notes import clean_text
from chat.service.storage.tables import MAX_NOTE_CHARS
from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.notes.conftest import make_note, texts
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

MARKUP = '<script>alert(1)</script> | <img src=x onerror="x()"> & **bold**'


def test_a_note_is_made_changed_and_deleted(api: Api) -> None:
    with api.key_client() as client:
        made = make_note(client, "2007.01282", "FiD encodes passages one by one")
        changed = client.patch(f"/api/notes/{made['id']}", json={"text": "and decodes jointly"})
        read = client.get(f"/api/notes/{made['id']}")
        deleted = client.delete(f"/api/notes/{made['id']}")
        gone = client.get(f"/api/notes/{made['id']}")

    assert made["anchor"] is None
    assert changed.json()["text"] == "and decodes jointly"
    assert read.json()["text"] == "and decodes jointly"
    assert read.json()["updated_at"] >= read.json()["created_at"]
    assert (deleted.status_code, gone.status_code) == (204, 404)


def test_notes_are_listed_all_per_paper_and_per_collection(api: Api) -> None:
    with api.key_client() as client:
        make_note(client, "2007.01282", "on FiD")
        make_note(client, "1503.02531", "on distillation")
        make_note(client, "1812.06145", "elsewhere")
        collection_id = make_collection(client, "Reading", "2007.01282", "1503.02531")

        every = texts(client.get("/api/notes"))
        on_fid = texts(client.get("/api/notes", params={"paper_id": "2007.01282"}))
        in_collection = texts(client.get("/api/notes", params={"collection_id": collection_id}))

    assert every == ["on FiD", "on distillation", "elsewhere"]
    assert on_fid == ["on FiD"]
    assert in_collection == ["on FiD", "on distillation"]


def test_search_finds_the_users_notes_by_their_words(api: Api) -> None:
    with api.key_client() as client:
        make_note(client, "2007.01282", "Passages are encoded independently")
        make_note(client, "1503.02531", "Soft targets carry dark knowledge")

        found = texts(client.get("/api/notes", params={"q": "ENCODED passages"}))
        none = texts(client.get("/api/notes", params={"q": "transformer"}))

    assert found == ["Passages are encoded independently"]
    assert none == []


def test_search_keeps_to_a_collections_papers_when_asked(api: Api) -> None:
    with api.key_client() as client:
        make_note(client, "2007.01282", "retrieval in the collection")
        make_note(client, "1812.06145", "retrieval outside it")
        collection_id = make_collection(client, "Reading", "2007.01282")

        found = texts(
            client.get("/api/notes", params={"q": "retrieval", "collection_id": collection_id})
        )
        elsewhere = texts(
            client.get("/api/notes", params={"q": "retrieval", "paper_id": "1812.06145"})
        )

    assert found == ["retrieval in the collection"]
    assert elsewhere == ["retrieval outside it"]


def test_a_note_on_a_paper_the_index_does_not_hold_is_a_404(api: Api) -> None:
    with api.key_client() as client:
        made = client.post("/api/notes", json={"paper_id": "9999.99999", "text": "x"})

    assert made.status_code == 404


def test_a_megabyte_note_is_refused_and_nothing_is_kept(api: Api) -> None:
    with api.key_client() as client:
        huge = client.post("/api/notes", json={"paper_id": "2007.01282", "text": "a" * 1_000_000})
        too_long = client.post(
            "/api/notes", json={"paper_id": "2007.01282", "text": "a" * (MAX_NOTE_CHARS + 1)}
        )
        kept = texts(client.get("/api/notes"))

    assert huge.status_code in {413, 422}
    assert too_long.status_code == 422
    assert kept == []


def test_control_characters_are_dropped_and_a_blank_note_refused(api: Api) -> None:
    with api.key_client() as client:
        made = make_note(client, "2007.01282", "a\x00b\x1b[31mc\u202eX\r\nline two\t!")
        blank = client.post("/api/notes", json={"paper_id": "2007.01282", "text": "\x00\x07 \n"})

    assert made["text"] == "ab[31mcX\nline two\t!"
    assert blank.status_code == 422


def test_markup_in_a_note_comes_back_as_the_same_text(api: Api) -> None:
    with api.key_client() as client:
        made = make_note(client, "2007.01282", MARKUP)
        listed = texts(client.get("/api/notes"))

    assert made["text"] == MARKUP
    assert listed == [MARKUP]


def test_a_signed_out_client_and_a_cookie_without_csrf_are_refused(api: Api) -> None:
    with api.client() as anonymous:
        listed = anonymous.get("/api/notes")
    with api.signed_in() as signed_in:
        signed_in.headers.pop("X-CSRF-Token")
        posted = signed_in.post("/api/notes", json={"paper_id": "2007.01282", "text": "x"})

    assert listed.status_code == 401
    assert posted.status_code == 403


def test_clean_text_keeps_new_lines_tabs_and_words_of_any_script() -> None:
    cleaned = clean_text("  \u00e9t\u00e9\u200c \u05e9\u05dc\u05d5\u05dd\r\n\tok\x7f  ")

    assert cleaned == "\u00e9t\u00e9\u200c \u05e9\u05dc\u05d5\u05dd\n\tok"
