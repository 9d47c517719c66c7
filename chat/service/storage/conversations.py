"""Conversations and their messages, always through their owner.

Every function takes the id of the signed-in user: a conversation that
belongs to someone else is reported exactly like one that does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import CursorResult, func, select, update
from sqlalchemy.orm import Session, selectinload

from chat.service.storage.tables import Conversation, Message, utcnow
from ingest.errors import PaperchatError

Role = Literal["user", "assistant"]
Status = Literal["complete", "cancelled", "error", "streaming", "interrupted"]

TITLE_LENGTH = 60
UNTITLED = "New conversation"


class NotFound(PaperchatError):
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


def open_turn(
    session: Session,
    user_id: str,
    conversation_id: str | None,
    question: str,
    *,
    node: str | None = None,
    **reply: Any,
) -> tuple[Conversation, Message]:
    """The user's question and an empty assistant message (status `streaming`, written by
    the server process `node`, `reply`'s fields) in the user's conversation, or in a new
    one titled from the question when `conversation_id` is None: one commit, so a turn
    takes the database's writer once.

    The conversation is locked before its last position is read, so that two
    follow-ups at once (two tabs, a double submit) are numbered one after the other."""
    if conversation_id is None:
        conversation = Conversation(user_id=user_id, title=title_from(question))
        session.add(conversation)
        session.flush()
    else:
        _lock(session, user_id, conversation_id)
        conversation = _owned(session, user_id, conversation_id)
    _append(session, conversation, "user", content=question)
    message = _append(
        session,
        conversation,
        "assistant",
        status="streaming",
        node_id=node,
        heartbeat_at=utcnow(),
        **reply,
    )
    session.commit()
    return conversation, message


def messages_before(session: Session, user_id: str, reply: Message) -> list[Message]:
    """The messages of `reply`'s conversation before its turn (its question and itself), in
    order: those of every turn that took the conversation's lock before it, as they are now.

    `open_turn` numbers a turn under the lock, so a follow-up asked at the
    same time as another sees the other's question (and its answer, if it
    ended meanwhile) when it took the lock second.
    """
    query = (
        select(Message)
        .join(Conversation)
        .where(
            Message.conversation_id == reply.conversation_id,
            Message.position < reply.position - 1,
            Conversation.user_id == user_id,
        )
        .order_by(Message.position)
    )
    return list(session.scalars(query))


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
    quotes: Sequence[dict[str, Any]] | None = None,
    scope: dict[str, Any] | None = None,
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
        "quotes": None if quotes is None else list(quotes),
        "scope": scope,
    }
    for field, value in changes.items():
        if value is not None:
            setattr(message, field, value)
    message.conversation.updated_at = utcnow()
    session.commit()
    return message


# Ids asked about in one statement at most: SQLite's oldest limit on bound parameters is 999.
IDS_PER_QUERY = 500


def existing_answers(session: Session, message_ids: Sequence[str]) -> set[str]:
    """Which of these assistant messages are still there (their conversation not deleted):
    one query for up to `IDS_PER_QUERY` of them."""
    found: set[str] = set()
    for start in range(0, len(message_ids), IDS_PER_QUERY):
        part = message_ids[start : start + IDS_PER_QUERY]
        query = (
            select(Message.id)
            .join(Conversation)
            .where(Message.id.in_(part), Message.role == "assistant")
        )
        found.update(session.scalars(query))
    return found


def beat(session: Session, node: str) -> int:
    """Note that the server process `node` is alive and still writing the answers it
    streams; how many there are."""
    result = session.execute(
        update(Message)
        .where(Message.status == "streaming", Message.node_id == node)
        .values(heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return cast(CursorResult[Any], result).rowcount


def mark_interrupted(session: Session, beaten_before: datetime) -> int:
    """Mark `interrupted` every answer still `streaming` whose server process last beat
    before `beaten_before` (or never did); how many there were.

    Such an answer was cut off by a server that died (SIGKILL, a crash, a
    lost machine): a live one beats every `PAPERCHAT_STREAM_HEARTBEAT_S`.
    """
    stale = (Message.heartbeat_at.is_(None)) | (Message.heartbeat_at < beaten_before)
    result = session.execute(
        update(Message)
        .where(Message.status == "streaming", stale)
        .values(status="interrupted")
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return cast(CursorResult[Any], result).rowcount


def _lock(session: Session, user_id: str, conversation_id: str) -> None:
    """Hold the conversation's row until the commit, else NotFound.

    An UPDATE as the transaction's first write takes SQLite's one writer lock
    (pysqlite begins the transaction there, so no older snapshot is read
    after it) and PostgreSQL's row lock; a concurrent turn waits for ours to
    commit and then reads our positions.
    """
    locked = session.execute(
        update(Conversation)
        .where(Conversation.id == conversation_id, Conversation.user_id == user_id)
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if cast(CursorResult[Any], locked).rowcount == 0:
        raise NotFound(f"no conversation {conversation_id!r}")


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
    """A message at the end of `conversation`, flushed; the caller commits."""
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
    session.flush()
    return message
