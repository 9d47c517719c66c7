"""`/api/notes`: the signed-in user's private notes on papers and on passages of them.

Only their owner sees or changes a note: another user's is a 404, as one that
does not exist is, on every route. A note on a passage keeps the page, the
words it quotes and their boxes; listed for its paper, it is looked for again
by those words on the reader's pages (`chat.service.web.papers.anchors`), so
a paper read anew keeps it on its words.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, status
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from chat.library.papers import paper_details
from chat.service.routes.deps import CurrentUser, PaperId, Services, ServicesDep, SessionDep
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.collections import get_collection, paper_ids
from chat.service.storage.notes import (
    NoteNotFound,
    TooManyNotes,
    create_note,
    delete_note,
    get_note,
    list_notes,
    update_note,
)
from chat.service.storage.tables import MAX_NOTE_CHARS, MAX_NOTE_QUOTE_CHARS, Note
from chat.service.web.papers.anchors import Place, relocate
from chat.service.web.papers.pdfpages import (
    PageOutOfRange,
    PdfUnavailable,
    ReaderBusy,
    RendersLimited,
)
from chat.service.web.papers.reader import render_check
from ingest.index.records import Box, normalise_paper_id

router = APIRouter(tags=["notes"])

MAX_PAGE = 10_000
MAX_ANCHOR_BOXES = 64
MAX_SEARCH_CHARS = 200
_KEPT_CONTROLS = {"\n", "\t"}
# Characters that reorder the text shown after them.
_BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_READER_FAILURES = (PdfUnavailable, PageOutOfRange, ReaderBusy, RendersLimited)
# A character a note keeps that is not a space: a note of none is blank.
SHOWN = r"[^\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


class BoxIn(BaseModel):
    """A rectangle on a page, in fractions of its width and height from its top left."""

    page: int = Field(ge=1, le=MAX_PAGE)
    x0: float = Field(ge=0, le=1)
    y0: float = Field(ge=0, le=1)
    x1: float = Field(ge=0, le=1)
    y1: float = Field(ge=0, le=1)


class AnchorIn(BaseModel):
    page: int = Field(ge=1, le=MAX_PAGE, description="the reader's page, 1-based")
    quote: str = Field(
        min_length=1,
        max_length=MAX_NOTE_QUOTE_CHARS,
        pattern=SHOWN,
        description="the words the note is on",
    )
    boxes: list[BoxIn] = Field(default=[], max_length=MAX_ANCHOR_BOXES)


NoteText = Field(
    min_length=1,
    max_length=MAX_NOTE_CHARS,
    pattern=SHOWN,
    description="the note, plain text; control characters but new lines and tabs are dropped",
)


class NewNote(BaseModel):
    paper_id: PaperId = Field(description="an id of a paper in the index, e.g. 2007.01282")
    text: str = NoteText
    anchor: AnchorIn | None = Field(default=None, description="the passage; none for the paper")


class NoteEdit(BaseModel):
    text: str = NoteText


class AnchorOut(BaseModel):
    page: int
    quote: str
    boxes: list[BoxIn]
    anchored: bool | None = Field(
        description="listed for its paper: whether its words were found on the reader's "
        "pages now (page and boxes are then where they are); null elsewhere"
    )


class NoteOut(BaseModel):
    id: str
    paper_id: str
    text: str
    anchor: AnchorOut | None
    created_at: datetime
    updated_at: datetime


class Notes(BaseModel):
    notes: list[NoteOut] = Field(description="the oldest first")


def clean_text(value: str) -> str:
    """`value` without control characters (but new lines and tabs), bidirectional
    overrides or lone surrogates, its line ends as `\\n`; trimmed."""
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    kept = (
        c
        for c in value
        if c in _KEPT_CONTROLS
        or (unicodedata.category(c) not in {"Cc", "Cs"} and c not in _BIDI_CONTROLS)
    )
    return "".join(kept).strip()


def _text(value: str, what: str, limit: int) -> str:
    text = clean_text(value)
    if not text:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"a note's {what} is blank")
    if len(text) > limit:
        detail = f"a note's {what} is at most {limit} characters"
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail)
    return text


def _out(note: Note, place: Place | None = None, checked: bool = False) -> NoteOut:
    anchor = None
    if note.anchor_page is not None and note.anchor_quote is not None:
        boxes = [BoxIn.model_validate(box) for box in note.anchor_boxes or []]
        page = note.anchor_page
        if place is not None:
            page, boxes = place.page, [BoxIn.model_validate(b.as_json()) for b in place.boxes]
        anchored = (place is not None) if checked else None
        anchor = AnchorOut(page=page, quote=note.anchor_quote, boxes=boxes, anchored=anchored)
    return NoteOut(
        id=note.id,
        paper_id=note.paper_id,
        text=note.text,
        anchor=anchor,
        created_at=note.created_at,
        updated_at=note.updated_at,
    )


def _anchored(paper_id: str, notes: list[Note], request: Request, services: Services) -> Notes:
    """The paper's notes, each anchor looked for on the reader's pages as they are now."""
    if not any(note.anchor_quote for note in notes):
        return Notes(notes=[_out(note) for note in notes])
    pages = services.pdf_pages
    check = render_check(request, services)

    def page_boxes(page: int, ranges: list[tuple[int, int]]) -> list[Box]:
        found = pages.text_boxes(paper_id, page, lambda _text: ranges, check)
        return [box for line in found for box in line]

    listed = []
    try:
        _, texts = pages.page_texts(paper_id, check)
    except _READER_FAILURES:
        texts = ()
    for note in notes:
        place = None
        if note.anchor_quote is not None and note.anchor_page is not None and texts:
            try:
                place = relocate(note.anchor_quote, note.anchor_page, texts, page_boxes)
            except _READER_FAILURES:
                place = None
        listed.append(_out(note, place, checked=True))
    return Notes(notes=listed)


def _mine(session: Session, user_id: str, note_id: str) -> Note:
    try:
        return get_note(session, user_id, note_id)
    except NoteNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e


@router.post(
    "/api/notes", status_code=status.HTTP_201_CREATED, responses=errors(*BODY, *SIGNED_IN, 404)
)
def new_note(
    body: NewNote, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> NoteOut:
    """A note on a paper, or on a passage of its reader (`anchor`); 404 for a paper the
    index does not hold, 422 past `MAX_NOTES_PER_USER` notes."""
    text = _text(body.text, "text", MAX_NOTE_CHARS)
    paper_id = paper_details(services.index.catalog, body.paper_id)["id"]
    anchor = None
    if body.anchor is not None:
        quote = _text(body.anchor.quote, "quote", MAX_NOTE_QUOTE_CHARS)
        boxes = [box.model_dump() for box in body.anchor.boxes]
        anchor = (body.anchor.page, quote, boxes)
    try:
        note = create_note(session, user.id, paper_id, text, anchor)
    except TooManyNotes as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    return _out(note)


@router.get("/api/notes", responses=errors(401, 404, 422))
def get_notes(
    request: Request,
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
    paper_id: Annotated[PaperId | None, Query(description="only the notes on this paper")] = None,
    collection_id: Annotated[
        str | None, Query(max_length=64, description="only those on its papers")
    ] = None,
    q: Annotated[
        str | None,
        Query(max_length=MAX_SEARCH_CHARS, description="only those holding all these words"),
    ] = None,
) -> Notes:
    """The user's notes, the oldest first: all, on a paper (its anchors looked for on the
    reader's pages as they are now), on the papers of one of the user's collections, and
    those holding every word of `q` in their text or quoted words, in any case."""
    papers = None
    if collection_id is not None:
        papers = paper_ids(session, get_collection(session, user.id, collection_id))
    if paper_id is not None:
        wanted = normalise_paper_id(paper_id)
        papers = [wanted] if papers is None or wanted in papers else []
    words = None if q is None else clean_text(q)
    notes = list_notes(session, user.id, papers, words)
    if paper_id is not None:
        return _anchored(normalise_paper_id(paper_id), notes, request, services)
    return Notes(notes=[_out(note) for note in notes])


@router.get("/api/notes/{note_id}", responses=errors(401, 404, 422))
def get_one(note_id: str, user: CurrentUser, session: SessionDep) -> NoteOut:
    return _out(_mine(session, user.id, note_id))


@router.patch("/api/notes/{note_id}", responses=errors(*BODY, *SIGNED_IN, 404))
def edit(note_id: str, body: NoteEdit, user: CurrentUser, session: SessionDep) -> NoteOut:
    """Replace the note's text."""
    text = _text(body.text, "text", MAX_NOTE_CHARS)
    try:
        return _out(update_note(session, user.id, note_id, text))
    except NoteNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e


@router.delete(
    "/api/notes/{note_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def remove(note_id: str, user: CurrentUser, session: SessionDep) -> None:
    try:
        delete_note(session, user.id, note_id)
    except NoteNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
