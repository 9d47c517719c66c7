"""Users' private notes on papers and on passages of them, always through their owner.

Another user's note is `NoteNotFound`, as one that does not exist is: no
answer tells them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, select
from sqlalchemy.orm import Session

from chat.service.storage.tables import Note, utcnow
from ingest.errors import PaperchatError

MAX_NOTES_PER_USER = 5_000
MAX_SEARCH_WORDS = 8
MAX_LISTED = 500


class NoteNotFound(PaperchatError, LookupError):
    """No such note for this user (whether or not someone else has one)."""


class TooManyNotes(PaperchatError, ValueError):
    """The user keeps as many notes as allowed."""


def get_note(session: Session, user_id: str, note_id: str) -> Note:
    found = session.scalar(select(Note).where(Note.id == note_id, Note.user_id == user_id))
    if found is None:
        raise NoteNotFound(f"no note {note_id!r}")
    return found


def create_note(
    session: Session,
    user_id: str,
    paper_id: str,
    text: str,
    anchor: tuple[int, str, list[dict[str, Any]]] | None = None,
) -> Note:
    """A new note on the paper, or on the passage `anchor` (page, quoted words, their
    boxes); TooManyNotes when the user has `MAX_NOTES_PER_USER` already."""
    count = session.scalar(select(func.count()).where(Note.user_id == user_id)) or 0
    if count >= MAX_NOTES_PER_USER:
        raise TooManyNotes(f"a user keeps at most {MAX_NOTES_PER_USER} notes")
    note = Note(user_id=user_id, paper_id=paper_id, text=text)
    if anchor is not None:
        note.anchor_page, note.anchor_quote, note.anchor_boxes = anchor
    session.add(note)
    session.commit()
    return note


def _listed(session: Session, *where: ColumnElement[bool]) -> list[Note]:
    query = select(Note).where(*where).order_by(Note.created_at, Note.id).limit(MAX_LISTED)
    return list(session.scalars(query))


def _like(word: str) -> str:
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _holding(words: str) -> ColumnElement[bool] | None:
    """Notes whose text or quoted words hold each of `words` (its first `MAX_SEARCH_WORDS`)
    in any case; None for no words."""
    terms = words.split()[:MAX_SEARCH_WORDS]
    if not terms:
        return None
    quote = func.coalesce(Note.anchor_quote, "")
    return and_(
        *(
            Note.text.ilike(_like(term), escape="\\") | quote.ilike(_like(term), escape="\\")
            for term in terms
        )
    )


def list_notes(
    session: Session,
    user_id: str,
    paper_ids: Sequence[str] | None = None,
    words: str | None = None,
) -> list[Note]:
    """The user's notes, the oldest first (at most `MAX_LISTED`): all of them, or those on
    `paper_ids`, or those holding every one of `words` (a wildcard in them only itself);
    none for no paper ids or no words."""
    where = [Note.user_id == user_id]
    if paper_ids is not None:
        if not paper_ids:
            return []
        where.append(Note.paper_id.in_(list(paper_ids)))
    if words is not None:
        holding = _holding(words)
        if holding is None:
            return []
        where.append(holding)
    return _listed(session, *where)


def update_note(session: Session, user_id: str, note_id: str, text: str) -> Note:
    note = get_note(session, user_id, note_id)
    note.text = text
    note.updated_at = utcnow()
    session.commit()
    return note


def delete_note(session: Session, user_id: str, note_id: str) -> None:
    deleted = session.execute(delete(Note).where(Note.id == note_id, Note.user_id == user_id))
    session.commit()
    if not getattr(deleted, "rowcount", 0):
        raise NoteNotFound(f"no note {note_id!r}")
