"""The tables: users, their API keys and browser sessions, their conversations and the
messages in them.

The schema itself is created and changed only by the migrations in
`chat/service/storage/migrations`; these classes must match them.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

ROLES = ("user", "assistant")
STATUSES = ("complete", "cancelled", "error", "streaming", "interrupted")
MAX_USER_AGENT_CHARS = 300

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return str(uuid.uuid4())


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on every database (SQLite keeps no time zone of its own)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware one")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    # Stored normalized (trimmed, lower case), so the unique constraint is case-insensitive.
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    is_admin: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    prefix: Mapped[str] = mapped_column(String(16), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class BrowserSession(Base):
    """A signed-in browser. Its cookie holds a random token; only the token's SHA-256 is kept
    here, so the table cannot sign anyone in. Deleting the row ends the session at once."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Rewritten at most once a minute, as a key's `last_used_at` is.
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # The browser's User-Agent at sign-in, cut to fit: for the user to tell their sessions
    # apart, never to decide anything.
    user_agent: Mapped[str] = mapped_column(
        String(MAX_USER_AGENT_CHARS), default="", server_default=""
    )


class Conversation(Base):
    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    messages: Mapped[list[Message]] = relationship(
        back_populates="conversation",
        order_by="Message.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class Message(Base):
    __tablename__ = "messages"
    __table_args__ = (
        UniqueConstraint("conversation_id", "position"),
        CheckConstraint(f"role IN {ROLES!r}", name="role"),
        CheckConstraint(f"status IN {STATUSES!r}", name="status"),
        # The answers streaming now: the few rows the heartbeats and the sweep touch.
        Index(
            "ix_messages_streaming",
            "node_id",
            sqlite_where=text("status = 'streaming'"),
            postgresql_where=text("status = 'streaming'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    # Indexed by the unique (conversation_id, position) constraint.
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    # 1, 2, 3... within the conversation: the order, even when two share a timestamp.
    position: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text, default="")
    sources: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    citations: Mapped[list[str]] = mapped_column(JSON, default=list)
    # Each citation in the order written: {"id", "chunk_id", "text"} (the done event's quotes).
    quotes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))
    # The previous answer's papers a follow-up was asked about (the sources event's scope).
    scope: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    status: Mapped[str] = mapped_column(String(16), default="complete")
    mode: Mapped[str | None] = mapped_column(String(32))
    prompt_version: Mapped[str | None] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(200))
    usage: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    timings: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # While an answer streams: the server process writing it, and when that process last
    # showed it was alive. An answer whose beat is older than the stream TTL was cut off.
    node_id: Mapped[str | None] = mapped_column(String(128))
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    conversation: Mapped[Conversation] = relationship(back_populates="messages")


FOLLOW_KINDS = ("researcher", "category", "search", "paper")


class Follow(Base):
    """What a user follows: a researcher (by name), an arXiv category, a saved search (its
    words), or a paper (its new versions)."""

    __tablename__ = "follows"
    __table_args__ = (
        UniqueConstraint("user_id", "kind", "value"),
        CheckConstraint(f"kind IN {FOLLOW_KINDS!r}", name="kind"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    value: Mapped[str] = mapped_column(String(500))
    # The catalog's papers up to this rowid have been compared with the follow.
    checked_rowid: Mapped[int] = mapped_column(Integer, default=0)
    # A followed paper's version when last compared ("" for the other kinds).
    seen_version: Mapped[str] = mapped_column(String(16), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Alert(Base):
    """A paper new to a follow (or a followed paper's new version), read or not."""

    __tablename__ = "alerts"
    __table_args__ = (UniqueConstraint("follow_id", "paper_id", "version"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    follow_id: Mapped[str] = mapped_column(ForeignKey("follows.id", ondelete="CASCADE"))
    paper_id: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(16), default="")
    read: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


DIGEST_FREQUENCIES = ("off", "daily", "weekly")


MAX_BOUNCE_CHARS = 500


class Digest(Base):
    """How often a user is sent the e-mail digest of their unread alerts, when it last was,
    and when the SMTP server last refused it for their address (with what it answered; none
    since the last digest it took)."""

    __tablename__ = "digests"
    __table_args__ = (CheckConstraint(f"frequency IN {DIGEST_FREQUENCIES!r}", name="frequency"),)

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    frequency: Mapped[str] = mapped_column(String(8), default="off")
    last_sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    bounced_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    bounce: Mapped[str] = mapped_column(String(MAX_BOUNCE_CHARS), default="", server_default="")


class FeedToken(Base):
    """The secret in a user's private feed address; only its SHA-256 is kept. One per user:
    a new one replaces it, deleting it revokes the address."""

    __tablename__ = "feed_tokens"

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


MAX_COLLECTION_NAME_CHARS = 200


class Collection(Base):
    """A user's named set of papers. Its name is the user's only once; a read-only share
    link opens it while `share_token_hash` (the SHA-256 of the link's secret) is set."""

    __tablename__ = "collections"
    __table_args__ = (UniqueConstraint("user_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    # Indexed by the unique (user_id, name) constraint.
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(MAX_COLLECTION_NAME_CHARS))
    share_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class CollectionPaper(Base):
    """A paper in a collection, once."""

    __tablename__ = "collection_papers"

    collection_id: Mapped[str] = mapped_column(
        ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True
    )
    paper_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    added_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


MAX_NOTE_CHARS = 10_000
MAX_NOTE_QUOTE_CHARS = 1_000


class Note(Base):
    """A user's private note on a paper, or on a passage of its reader: the page, the words
    quoted from it and their boxes (a JSON list of `Box.as_json()`), so the passage is found
    again by its words after the paper is read anew."""

    __tablename__ = "notes"
    __table_args__ = (Index("ix_notes_user_id_paper_id", "user_id", "paper_id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    paper_id: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    anchor_page: Mapped[int | None] = mapped_column(Integer)
    anchor_quote: Mapped[str | None] = mapped_column(Text)
    anchor_boxes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


UPLOAD_STATUSES = ("processing", "ready", "failed")
MAX_UPLOAD_NAME_CHARS = 255


class Upload(Base):
    """A PDF a user uploaded: read into an index of its own (`doc_id` is its paper there),
    or found in the library (`library_id`), or failed with its `reason`. Only its owner
    sees it; its files live in the uploads folder under the owner's and its own id."""

    __tablename__ = "uploads"
    __table_args__ = (
        CheckConstraint(f"status IN {UPLOAD_STATUSES!r}", name="status"),
        Index("ix_uploads_user_id_sha256", "user_id", "sha256"),
        # The uploads being read: the few rows the readers' heartbeats and sweeps touch.
        Index(
            "ix_uploads_processing",
            "reader_node",
            sqlite_where=text("status = 'processing'"),
            postgresql_where=text("status = 'processing'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    filename: Mapped[str] = mapped_column(String(MAX_UPLOAD_NAME_CHARS))
    bytes: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="processing")
    reason: Mapped[str | None] = mapped_column(Text)
    doc_id: Mapped[str | None] = mapped_column(String(64))
    library_id: Mapped[str | None] = mapped_column(String(64))
    title: Mapped[str | None] = mapped_column(Text)
    pages: Mapped[int | None] = mapped_column(Integer)
    chunks: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # While it is read: the server process reading it, and when that process last showed it
    # was alive. One whose beat is older than the TTL is taken over by another reader.
    reader_node: Mapped[str | None] = mapped_column(String(128))
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
