"""Notes on SQLite and PostgreSQL: their owner's alone, found by their words (a wildcard in
the words is only itself), bounded in number."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from chat.service.access.accounts import create_user
from chat.service.storage import notes
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.notes import (
    NoteNotFound,
    TooManyNotes,
    create_note,
    delete_note,
    get_note,
    list_notes,
    update_note,
)

pytestmark = pytest.mark.timeout(120)

BOXES = [{"page": 2, "x0": 0.1, "y0": 0.2, "x1": 0.5, "y1": 0.25}]


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


def _user(sessions: sessionmaker[Session], email: str) -> str:
    with sessions() as session:
        return create_user(session, email, "a long password").id


def test_a_passage_note_keeps_its_page_quote_and_boxes(sessions: sessionmaker[Session]) -> None:
    ada = _user(sessions, "ada@example.org")
    with sessions() as session:
        note_id = create_note(
            session, ada, "2007.01282", "FiD reads each passage alone", (2, "we encode", BOXES)
        ).id

    with sessions() as session:
        note = get_note(session, ada, note_id)

    assert (note.paper_id, note.text) == ("2007.01282", "FiD reads each passage alone")
    assert (note.anchor_page, note.anchor_quote, note.anchor_boxes) == (2, "we encode", BOXES)


def test_another_users_note_is_not_found_to_read_change_or_delete(
    sessions: sessionmaker[Session],
) -> None:
    ada, bob = _user(sessions, "ada@example.org"), _user(sessions, "bob@example.org")
    with sessions() as session:
        note_id = create_note(session, ada, "2007.01282", "mine").id

    with sessions() as session:
        for attempt in (get_note, delete_note):
            with pytest.raises(NoteNotFound):
                attempt(session, bob, note_id)
        with pytest.raises(NoteNotFound):
            update_note(session, bob, note_id, "taken over")
        listed, found = list_notes(session, bob), list_notes(session, bob, words="mine")

    with sessions() as session:
        assert get_note(session, ada, note_id).text == "mine"
    assert (listed, found) == ([], [])


def test_search_finds_notes_holding_every_word_in_any_case(
    sessions: sessionmaker[Session],
) -> None:
    ada = _user(sessions, "ada@example.org")
    with sessions() as session:
        create_note(session, ada, "2007.01282", "Fusion in the DECODER")
        create_note(session, ada, "1503.02531", "distillation, no decoder")
        create_note(session, ada, "1503.02531", "soft targets", (1, "a decoder fusion", []))

    with sessions() as session:
        found = [note.text for note in list_notes(session, ada, words="decoder fusion")]
        nothing = list_notes(session, ada, words="   ")

    assert found == ["Fusion in the DECODER", "soft targets"]
    assert nothing == []


def test_a_wildcard_in_the_searched_words_matches_only_itself(
    sessions: sessionmaker[Session],
) -> None:
    ada = _user(sessions, "ada@example.org")
    with sessions() as session:
        create_note(session, ada, "2007.01282", "100% recall")
        create_note(session, ada, "2007.01282", "top_k of 5")
        create_note(session, ada, "2007.01282", "plain words")

    with sessions() as session:
        percent = [note.text for note in list_notes(session, ada, words="%")]
        underscore = [note.text for note in list_notes(session, ada, words="p_k")]

    assert percent == ["100% recall"]
    assert underscore == ["top_k of 5"]


def test_notes_are_listed_per_paper_the_oldest_first(sessions: sessionmaker[Session]) -> None:
    ada = _user(sessions, "ada@example.org")
    with sessions() as session:
        for paper_id, text in [("a", "first"), ("b", "second"), ("a", "third")]:
            create_note(session, ada, paper_id, text)

    with sessions() as session:
        on_a = [note.text for note in list_notes(session, ada, ["a"])]
        on_none = list_notes(session, ada, [])
        every = [note.text for note in list_notes(session, ada)]

    assert on_a == ["first", "third"]
    assert on_none == []
    assert every == ["first", "second", "third"]


def test_a_user_keeps_at_most_the_bounded_number_of_notes(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notes, "MAX_NOTES_PER_USER", 2)
    ada, bob = _user(sessions, "ada@example.org"), _user(sessions, "bob@example.org")
    with sessions() as session:
        create_note(session, ada, "a", "one")
        create_note(session, ada, "a", "two")

    with sessions() as session, pytest.raises(TooManyNotes):
        create_note(session, ada, "a", "three")
    with sessions() as session:
        kept = len(list_notes(session, ada))
        bobs = create_note(session, bob, "a", "his first").text

    assert kept == 2
    assert bobs == "his first"
