"""The MCP tools of the caller's collections: list them, read one's papers and uploads, add a
paper, and ask within one (its papers and the caller's uploads in it); and listing and
asking the caller's own uploads, alone or beside the library
(`chat.service.uploads.asking`).

They act for the owner of the API key the `/mcp` request came with (the
endpoint puts the user's id in the request's state), through the same
storage as `/api/collections`: another user's collection is "no collection",
as one that does not exist is. Over stdio (`paperchat mcp`) there is no user,
so they are not offered there.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import HTTPException
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from chat.library.papers import PaperNotFound, paper_details
from chat.rag.answer.answering import Question
from chat.service.mcp.notes import add_note_tools
from chat.service.mcp.tools import READ_ONLY, Answer, PaperId, answer, caller, check_question
from chat.service.mcp.watches import add_watch_tools
from chat.service.routes.collections.manage import CollectionUploadOut
from chat.service.routes.deps import PaperOut, Services, paper_list
from chat.service.storage.collections import (
    CollectionNotFound,
    TooMany,
    add_paper,
    collection_uploads,
    get_collection,
    list_collections,
    paper_ids,
)
from chat.service.storage.tables import Upload
from chat.service.storage.uploads import UploadNotFound, list_uploads
from chat.service.uploads.asking import (
    MAX_ASKED_UPLOADS,
    Asked,
    FolderOf,
    QuestionScope,
    question_scope,
    scope_answerer,
)

ADDS = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)
UploadIds = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=64)]],
    Field(
        min_length=1,
        max_length=MAX_ASKED_UPLOADS,
        description="ids of the caller's own uploads, once read (from /api/uploads)",
    ),
]
CollectionId = Annotated[
    str, Field(min_length=1, max_length=64, description="a collection's id, from collections")
]


class CollectionSummary(BaseModel):
    id: str
    name: str
    papers: int


class CollectionList(BaseModel):
    collections: list[CollectionSummary]


class CollectionPapers(BaseModel):
    id: str
    name: str
    papers: list[PaperOut]
    uploads: list[CollectionUploadOut] = Field(
        description="the caller's own uploads in it, in the order they were added"
    )


class UploadSummary(BaseModel):
    id: str
    filename: str
    title: str | None
    status: str = Field(description="`processing`, `ready` or `failed`")
    reason: str | None = Field(description="why it failed; null otherwise")
    pages: int | None
    doc_id: str | None = Field(description="ready: its paper in its own index, cited as such")
    library_id: str | None = Field(
        description="ready: the library's paper it is, asked and collected as that paper"
    )


class UploadList(BaseModel):
    uploads: list[UploadSummary] = Field(description="the newest first")


def upload_summary(upload: Upload) -> UploadSummary:
    return UploadSummary(
        id=upload.id,
        filename=upload.filename,
        title=upload.title,
        status=upload.status,
        reason=upload.reason,
        pages=upload.pages,
        doc_id=upload.doc_id,
        library_id=upload.library_id,
    )


class Added(BaseModel):
    paper_id: str
    added: bool = Field(description="false when the collection held it already")


class CollectionTools:
    """The tools' functions over the service's database and index."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def _papers_of(self, user_id: str, collection_id: str) -> tuple[str, list[str]]:
        with self.services.sessions() as session:
            try:
                found = get_collection(session, user_id, collection_id)
            except CollectionNotFound as e:
                raise ToolError(str(e)) from e
            return found.name, paper_ids(session, found)

    def _uploads_of(self, user_id: str, collection_id: str) -> list[CollectionUploadOut]:
        with self.services.sessions() as session:
            try:
                found = get_collection(session, user_id, collection_id)
            except CollectionNotFound as e:
                raise ToolError(str(e)) from e
            return [
                CollectionUploadOut(id=u.id, doc_id=u.doc_id, title=u.title, filename=u.filename)
                for u in collection_uploads(session, found)
            ]

    async def uploads(self, ctx: Context[Any, Any]) -> UploadList:
        user_id = caller(ctx)

        def listed() -> UploadList:
            with self.services.sessions() as session:
                found = list_uploads(session, user_id)
                return UploadList(uploads=[upload_summary(u) for u in found])

        return await run_in_threadpool(listed)

    async def collections(self, ctx: Context[Any, Any]) -> CollectionList:
        user_id = caller(ctx)

        def listed() -> CollectionList:
            with self.services.sessions() as session:
                found = list_collections(session, user_id)
            return CollectionList(
                collections=[CollectionSummary(id=c.id, name=c.name, papers=n) for c, n in found]
            )

        return await run_in_threadpool(listed)

    async def collection_papers(
        self, collection_id: CollectionId, ctx: Context[Any, Any]
    ) -> CollectionPapers:
        user_id = caller(ctx)
        name, ids = await run_in_threadpool(self._papers_of, user_id, collection_id)
        papers = await run_in_threadpool(paper_list, self.services.index.catalog, ids)
        uploads = await run_in_threadpool(self._uploads_of, user_id, collection_id)
        return CollectionPapers(id=collection_id, name=name, papers=papers, uploads=uploads)

    async def add_to_collection(
        self, collection_id: CollectionId, paper_id: PaperId, ctx: Context[Any, Any]
    ) -> Added:
        user_id = caller(ctx)

        def add() -> Added:
            self._papers_of(user_id, collection_id)
            try:
                held = paper_details(self.services.index.catalog, paper_id)["id"]
                with self.services.sessions() as session:
                    added = add_paper(
                        session,
                        user_id,
                        collection_id,
                        held,
                        max_papers=self.services.settings.max_collection_papers,
                    )
            except (PaperNotFound, TooMany, CollectionNotFound) as e:
                raise ToolError(str(e)) from e
            return Added(paper_id=held, added=added)

        return await run_in_threadpool(add)

    async def ask_collection(
        self,
        question: Annotated[str, Field(min_length=1, description="the question")],
        collection_id: CollectionId,
        ctx: Context[Any, Any],
    ) -> Answer:
        return await self._ask(question, Asked(collection_id=collection_id), ctx)

    async def ask_uploads(
        self,
        question: Annotated[str, Field(min_length=1, description="the question")],
        upload_ids: UploadIds,
        ctx: Context[Any, Any],
        with_library: Annotated[
            bool, Field(description="also answer from the whole library of papers")
        ] = False,
    ) -> Answer:
        asked = Asked(upload_ids=upload_ids, with_library=with_library)
        return await self._ask(question, asked, ctx)

    async def _ask(self, question: str, asked: Asked, ctx: Context[Any, Any]) -> Answer:
        """The answer from what `asked` names, as `/api/chat` gives it; another user's
        collection or upload is a tool error, in the words a missing one gets."""
        user_id = caller(ctx)
        text = check_question(question, self.services.limits.max_question_chars)
        request = ctx.request_context.request
        if request is None:
            raise ToolError("this tool acts for a signed-in user: call it over /mcp")
        folder_of: FolderOf = request.app.state.uploads.folder
        scope = await run_in_threadpool(self._scope, user_id, asked, folder_of)
        index = self.services.index
        with scope_answerer(index, scope) as answerer:
            return await answer(index, Question(text=text, filters=scope.filters), answerer)

    def _scope(self, user_id: str, asked: Asked, folder_of: FolderOf) -> QuestionScope:
        try:
            return question_scope(self.services, folder_of, user_id, asked)
        except (CollectionNotFound, UploadNotFound) as e:
            raise ToolError(str(e)) from e
        except HTTPException as e:
            raise ToolError(str(e.detail)) from e


DESCRIPTIONS = {
    "collections": "The caller's collections of papers (id, name, how many papers), the oldest "
    "first.",
    "collection_papers": "One of the caller's collections: its name, its papers (id, title, "
    "authors, date, link) and the caller's own uploads in it (id, doc_id, title, filename), "
    "each in the order they were added; another user's is an error.",
    "uploads": "The caller's own uploaded PDFs, the newest first: id, filename, title, status "
    "(processing, ready or failed, with its reason), pages, and once ready either doc_id (its "
    "own index, cited as [doc:ID]) or library_id (the library's paper it is, asked as that "
    "paper and cited as [arXiv:ID]). Their ids are what ask_uploads takes.",
    "add_to_collection": "Add a paper of this index to one of the caller's collections by its "
    "id; added is false when it was there already; an unknown paper is an error.",
    "ask_collection": "A grounded answer, as ask gives it, from the papers of one of the "
    "caller's collections only, citing them as [arXiv:ID], and from the caller's uploads in "
    "it, citing them as [doc:ID].",
    "ask_uploads": "A grounded answer, as ask gives it, from the caller's own uploaded PDFs "
    f"(at most {MAX_ASKED_UPLOADS}, each read already), citing them as [doc:ID], and one the "
    "library holds (its library_id) as that library paper, cited as [arXiv:ID]; with "
    "with_library, from the whole library of papers too, citing those as [arXiv:ID] in the "
    "same answer. Another user's upload is an error, as one that does not exist is.",
}


def add_collection_tools(server: MCPServer[Any], services: Services) -> None:
    """Register the collection tools on `server` (the one `/mcp` serves), and beside them
    the tools of the caller's notes (`chat.service.mcp.notes`) and of their questions that
    keep watch (`chat.service.mcp.watches`)."""
    tools = CollectionTools(services)
    for name, description in DESCRIPTIONS.items():
        annotations = ADDS if name == "add_to_collection" else READ_ONLY
        server.add_tool(
            getattr(tools, name), name=name, description=description, annotations=annotations
        )
    add_note_tools(server, services)
    add_watch_tools(server, services)
