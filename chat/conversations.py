"""Conversations and their messages, always through their owner.

Every function takes the id of the signed-in user: a conversation that
belongs to someone else is reported exactly like one that does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from chat.models import Conversation, Message, utcnow

Role = Literal["user", "assistant"]
Status = Literal["complete", "cancelled", "error", "streaming"]

TITLE_LENGTH = 60
UNTITLED = "New conversation"


class NotFound(Exception):
    """No such conversation or message for this user (whether or not someone else has one)."""


def title_from(message: str) -> str:
    """The first message on one line, cut at a word boundary near TITLE_LENGTH characters."""
    text = " ".join(message.split())
    if not text:
        return UNTITLED
    if len(text) <= TITLE_LENGTH:
        return text
    cut = text[: TITLE_LENGTH - 1]
    space = cut.rfind(" ")
    if space > TITLE_LENGTH // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def create_conversation(session: Session, user_id: str, first_message: str) -> Conversation:
    """An empty conversation titled from its first message (append the message itself next)."""
    conversation = Conversation(user_id=user_id, title=title_from(first_message))
    session.add(conversation)
    session.commit()
    return conversation


def list_conversations(
    session: Session, user_id: str, *, limit: int | None = None
) -> list[Conversation]:
    """The user's conversations, the most recently active first."""
    query = (
        select(Conversation)
        .where(Conversation.user_id == user_id)
        .order_by(Conversation.updated_at.desc(), Conversation.created_at.desc())
        .limit(limit)
    )
    return list(session.scalars(query))


def get_conversation(session: Session, user_id: str, conversation_id: str) -> Conversation:
    """The conversation with its messages loaded, in the order they were written."""
    query = (
        select(Conversation)
        .where(Conversation.id == conversation_id, Conversation.user_id == user_id)
        .options(selectinload(Conversation.messages))
        .execution_options(populate_existing=True)
    )
    conversation = session.scalar(query)
    if conversation is None:
        raise NotFound(f"no conversation {conversation_id!r}")
    return conversation


def delete_conversation(session: Session, user_id: str, conversation_id: str) -> None:
    """Delete the conversation and its messages."""
    conversation = _owned(session, user_id, conversation_id)
    session.delete(conversation)
    session.commit()


def append_user_message(
    session: Session, user_id: str, conversation_id: str, content: str
) -> Message:
    return _append(session, _owned(session, user_id, conversation_id), "user", content=content)


def start_assistant_message(
    session: Session,
    user_id: str,
    conversation_id: str,
    *,
    mode: str | None = None,
    prompt_version: str | None = None,
    model: str | None = None,
    sources: Sequence[dict[str, Any]] = (),
) -> Message:
    """An empty assistant message in status `streaming`, to be filled by updates."""
    return _append(
        session,
        _owned(session, user_id, conversation_id),
        "assistant",
        status="streaming",
        mode=mode,
        prompt_version=prompt_version,
        model=model,
        sources=list(sources),
    )


def update_assistant_message(
    session: Session,
    user_id: str,
    message_id: str,
    *,
    content: str | None = None,
    status: Status | None = None,
    sources: Sequence[dict[str, Any]] | None = None,
    citations: Sequence[str] | None = None,
    usage: dict[str, Any] | None = None,
    timings: dict[str, Any] | None = None,
) -> Message:
    """Set the fields given (None leaves one as it is); `content` replaces the text so far."""
    message = _owned_assistant_message(session, user_id, message_id)
    changes: dict[str, Any] = {
        "content": content,
        "status": status,
        "sources": None if sources is None else list(sources),
        "citations": None if citations is None else list(citations),
        "usage": usage,
        "timings": timings,
    }
    for field, value in changes.items():
        if value is not None:
            setattr(message, field, value)
    message.conversation.updated_at = utcnow()
    session.commit()
    return message


def _owned(session: Session, user_id: str, conversation_id: str) -> Conversation:
    conversation = session.scalar(
        select(Conversation).where(
            Conversation.id == conversation_id, Conversation.user_id == user_id
        )
    )
    if conversation is None:
        raise NotFound(f"no conversation {conversation_id!r}")
    return conversation


def _owned_assistant_message(session: Session, user_id: str, message_id: str) -> Message:
    message = session.scalar(
        select(Message)
        .join(Conversation)
        .where(
            Message.id == message_id,
            Message.role == "assistant",
            Conversation.user_id == user_id,
        )
    )
    if message is None:
        raise NotFound(f"no assistant message {message_id!r}")
    return message


def _append(session: Session, conversation: Conversation, role: Role, **fields: Any) -> Message:
    last = session.scalar(
        select(func.max(Message.position)).where(Message.conversation_id == conversation.id)
    )
    now = utcnow()
    message = Message(
        conversation_id=conversation.id,
        position=(last or 0) + 1,
        role=role,
        created_at=now,
        **fields,
    )
    conversation.updated_at = now
    session.add(message)
    session.commit()
    return message
