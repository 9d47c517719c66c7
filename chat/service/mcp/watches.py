"""The MCP tools of the caller's questions that keep watch: save one (with a collection as
its scope, if asked), and list them with the news each found.

They act for the owner of the API key the `/mcp` request came with, through the same
storage as `/api/watches` (`chat/service/storage/watches.py`); over stdio there is no user,
so they are not offered there.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from chat.library.authors import AuthorNotFound
from chat.service.mcp.tools import READ_ONLY, caller, check_question
from chat.service.routes.deps import Services
from chat.service.storage.collections import CollectionNotFound
from chat.service.storage.watches import (
    Scope,
    TooManyWatches,
    add_watch,
    list_watch_alerts,
    list_watches,
    refresh_watches,
    scope_filters,
    start_rowid,
)

SAVES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)


class NewsItem(BaseModel):
    paper_id: str
    sentence: str = Field(description="the sentence of the new paper that answers")
    citation: str
    read: bool


class SavedQuestion(BaseModel):
    id: str
    question: str
    collection_id: str | None
    news: list[NewsItem] = Field(description="the new evidence found since, the newest first")


class SavedQuestions(BaseModel):
    watches: list[SavedQuestion]


class WatchTools:
    """The tools' functions over the service's database and index."""

    def __init__(self, services: Services) -> None:
        self.services = services

    async def keep_watch(
        self,
        question: Annotated[str, Field(min_length=1, description="the question")],
        ctx: Context[Any, Any],
        collection_id: Annotated[
            str | None, Field(max_length=64, description="only this collection's papers")
        ] = None,
    ) -> SavedQuestion:
        user_id = caller(ctx)
        text = check_question(question, self.services.limits.max_question_chars)
        index = self.services.index

        def save() -> SavedQuestion:
            scope = Scope(collection_id=collection_id)
            with self.services.sessions() as session:
                try:
                    filters = scope_filters(session, index.catalog, user_id, scope)
                    baseline = index.watcher.baseline(text, filters)
                    made = add_watch(
                        session, user_id, text, scope, baseline, start_rowid(index.catalog)
                    )
                except (CollectionNotFound, AuthorNotFound, TooManyWatches) as e:
                    raise ToolError(str(e)) from e
                return SavedQuestion(
                    id=made.id, question=made.question, collection_id=collection_id, news=[]
                )

        return await run_in_threadpool(save)

    async def watches(self, ctx: Context[Any, Any]) -> SavedQuestions:
        user_id = caller(ctx)

        def listed() -> SavedQuestions:
            with self.services.sessions() as session:
                refresh_watches(session, self.services.index.watcher, user_id)
                news: dict[str, list[NewsItem]] = {}
                for alert, _ in list_watch_alerts(session, user_id):
                    news.setdefault(alert.watch_id, []).append(
                        NewsItem(
                            paper_id=alert.paper_id,
                            sentence=alert.sentence,
                            citation=alert.citation,
                            read=alert.read,
                        )
                    )
                return SavedQuestions(
                    watches=[
                        SavedQuestion(
                            id=w.id,
                            question=w.question,
                            collection_id=Scope.of(w.scope).collection_id,
                            news=news.get(w.id, []),
                        )
                        for w in list_watches(session, user_id)
                    ]
                )

        return await run_in_threadpool(listed)


DESCRIPTIONS = {
    "keep_watch": "Save a question that keeps watch (of the whole library, or of one of the "
    "caller's collections): when new papers arrive that answer it better than the library "
    "did, they become its news, quoted and cited as [arXiv:ID].",
    "watches": "The caller's questions that keep watch, the oldest first, each with the new "
    "evidence found since it was saved (paper, sentence, citation), the newest first.",
}


def add_watch_tools(server: MCPServer[Any], services: Services) -> None:
    """Register the tools of saved questions on `server` (the one `/mcp` serves)."""
    tools = WatchTools(services)
    for name, description in DESCRIPTIONS.items():
        annotations = SAVES if name == "keep_watch" else READ_ONLY
        server.add_tool(
            getattr(tools, name), name=name, description=description, annotations=annotations
        )
