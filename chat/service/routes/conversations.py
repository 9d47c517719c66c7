"""The signed-in user's conversations: list, fetch with every message, delete (which stops
the answers streaming in it at once, on this worker; another worker's in a second)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, status
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from chat.service.routes.deps import CurrentUser, Services, ServicesDep, SessionDep
from chat.service.routes.errors import SIGNED_IN, errors
from chat.service.storage.conversations import (
    delete_conversation,
    get_conversation,
    list_conversations,
)

router = APIRouter(tags=["conversations"])


class ConversationInfo(BaseModel):
    id: str
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(BaseModel):
    id: str
    role: str
    content: str
    sources: list[dict[str, Any]]
    citations: list[str]
    quotes: list[dict[str, Any]] = Field(
        default_factory=list,
        description="each citation in the order written: the passage it quotes and its words, "
        "as the done event gave them",
    )
    scope: dict[str, Any] | None = Field(
        default=None,
        description="the previous answer's papers a follow-up was asked about, as the "
        "sources event gave them",
    )
    status: str
    created_at: datetime


class ConversationOut(BaseModel):
    id: str
    title: str
    messages: list[MessageOut]


@router.get("/api/conversations", responses=errors(401))
def list_all(user: CurrentUser, session: SessionDep) -> list[ConversationInfo]:
    """Newest activity first."""
    return [
        ConversationInfo(id=c.id, title=c.title, created_at=c.created_at, updated_at=c.updated_at)
        for c in list_conversations(session, user.id)
    ]


@router.get("/api/conversations/{conversation_id}", responses=errors(401, 404, 422))
def get_one(conversation_id: str, user: CurrentUser, session: SessionDep) -> ConversationOut:
    """404 when it does not exist or is someone else's."""
    conversation = get_conversation(session, user.id, conversation_id)
    messages = [
        MessageOut(
            id=m.id,
            role=m.role,
            content=m.content,
            sources=list(m.sources or []),
            citations=list(m.citations or []),
            quotes=list(m.quotes or []),
            scope=m.scope,
            status=m.status,
            created_at=m.created_at,
        )
        for m in conversation.messages
    ]
    return ConversationOut(id=conversation.id, title=conversation.title, messages=messages)


@router.delete(
    "/api/conversations/{conversation_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
async def delete_one(conversation_id: str, user: CurrentUser, services: ServicesDep) -> None:
    await run_in_threadpool(_delete, services, user.id, conversation_id)
    services.turns.stop(conversation_id)


def _delete(services: Services, user_id: str, conversation_id: str) -> None:
    with services.sessions() as session:
        delete_conversation(session, user_id, conversation_id)
