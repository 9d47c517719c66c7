"""The MCP tools of the caller's notes: list them (all, on a paper, on a collection's papers,
holding words) and add one on a paper.

They act for the owner of the API key the `/mcp` request came with, through the same
storage as `/api/notes`: no other user's note is ever listed, and a collection of
another user's is "no collection", as one that does not exist is. Over stdio (`paperchat
mcp`) there is no user, so they are not offered there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from chat.library.papers import PaperNotFound, paper_details
from chat.service.mcp.tools import READ_ONLY, PaperId, caller
from chat.service.routes.deps import Services
from chat.service.routes.notes import MAX_SEARCH_CHARS, clean_text
from chat.service.storage.collections import CollectionNotFound, get_collection, paper_ids
from chat.service.storage.notes import TooManyNotes, create_note, list_notes
from chat.service.storage.tables import MAX_NOTE_CHARS, Note
from ingest.index.records import normalise_paper_id

ADDS = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)


class NoteItem(BaseModel):
    id: str
    paper_id: str
    text: str
    page: int | None = Field(description="the reader's page of the passage it is on; none")
    quote: str | None = Field(description="the words of the passage it is on; none")
    updated_at: datetime


class NoteList(BaseModel):
    notes: list[NoteItem] = Field(description="the oldest first")


def _item(note: Note) -> NoteItem:
    return NoteItem(
        id=note.id,
        paper_id=note.paper_id,
        text=note.text,
        page=note.anchor_page,
        quote=note.anchor_quote,
        updated_at=note.updated_at,
    )


class NoteTools:
    """The tools' functions over the service's database and index."""

    def __init__(self, services: Services) -> None:
        self.services = services

    async def notes(
        self,
        ctx: Context[Any, Any],
        paper_id: Annotated[PaperId | None, Field(description="only those on this paper")] = None,
        collection_id: Annotated[
            str | None,
            Field(min_length=1, max_length=64, description="only those on its papers"),
        ] = None,
        words: Annotated[
            str | None,
            Field(max_length=MAX_SEARCH_CHARS, description="only those holding all these words"),
        ] = None,
    ) -> NoteList:
        user_id = caller(ctx)

        def listed() -> NoteList:
            with self.services.sessions() as session:
                papers = None
                if collection_id is not None:
                    try:
                        found = get_collection(session, user_id, collection_id)
                    except CollectionNotFound as e:
                        raise ToolError(str(e)) from e
                    papers = paper_ids(session, found)
                if paper_id is not None:
                    wanted = normalise_paper_id(paper_id)
                    papers = [wanted] if papers is None or wanted in papers else []
                query = None if words is None else clean_text(words)
                return NoteList(
                    notes=[_item(n) for n in list_notes(session, user_id, papers, query)]
                )

        return await run_in_threadpool(listed)

    async def add_note(
        self,
        paper_id: PaperId,
        text: Annotated[
            str, Field(min_length=1, max_length=MAX_NOTE_CHARS, description="the note, plain text")
        ],
        ctx: Context[Any, Any],
    ) -> NoteItem:
        user_id = caller(ctx)

        def add() -> NoteItem:
            kept = clean_text(text)
            if not kept:
                raise ToolError("a note's text is blank")
            try:
                held = paper_details(self.services.index.catalog, paper_id)["id"]
                with self.services.sessions() as session:
                    return _item(create_note(session, user_id, held, kept))
            except (PaperNotFound, TooManyNotes) as e:
                raise ToolError(str(e)) from e

        return await run_in_threadpool(add)


DESCRIPTIONS = {
    "notes": "The caller's private notes, the oldest first: all of them, or only those on one "
    "paper, on the papers of one of the caller's collections, or holding all the words given.",
    "add_note": "Add a private note (plain text) on a paper of this index by its id; only the "
    "caller sees it (in notes, on the paper's page, in the collection's Markdown export).",
}


def add_note_tools(server: MCPServer[Any], services: Services) -> None:
    """Register the note tools on `server` (the one `/mcp` serves)."""
    tools = NoteTools(services)
    for name, description in DESCRIPTIONS.items():
        annotations = ADDS if name == "add_note" else READ_ONLY
        server.add_tool(
            getattr(tools, name), name=name, description=description, annotations=annotations
        )
