"""The answers of `/v1/responses` kept as a user's conversations, so that a later request
names one by `previous_response_id` and is asked with its conversation as history: a
response is the assistant message it was saved as, a turn of its conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from chat.service.storage.conversations import open_turn, update_assistant_message
from chat.service.storage.tables import Conversation, Message


def response_turns(
    session: Session, user_id: str, message_id: str
) -> tuple[str, list[tuple[str, str]]] | None:
    """The conversation of the user's answer `message_id` and its answered turns up to and
    including that answer, as (role, text); None when the user has no such answer."""
    reply = session.scalar(
        select(Message)
        .join(Conversation)
        .where(
            Message.id == message_id,
            Message.role == "assistant",
            Conversation.user_id == user_id,
        )
    )
    if reply is None:
        return None
    earlier = session.scalars(
        select(Message)
        .where(
            Message.conversation_id == reply.conversation_id,
            Message.position <= reply.position,
        )
        .order_by(Message.position)
    )
    turns = [(m.role, m.content) for m in earlier if m.content and m.status == "complete"]
    return reply.conversation_id, turns


def save_response(
    session: Session,
    user_id: str,
    conversation_id: str | None,
    question: str,
    message_id: str,
    *,
    content: str,
    sources: Sequence[dict[str, Any]],
    citations: Sequence[str],
    usage: dict[str, Any] | None,
    **reply: Any,
) -> str:
    """The question and its finished answer, saved as the message `message_id`, in the
    user's conversation `conversation_id` or a new one; the conversation's id."""
    conversation, message = open_turn(
        session, user_id, conversation_id, question, id=message_id, **reply
    )
    update_assistant_message(
        session,
        user_id,
        message.id,
        content=content,
        status="complete",
        sources=sources,
        citations=citations,
        usage=usage,
    )
    return conversation.id
