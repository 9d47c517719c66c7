"""The tables of questions that keep watch: each user's saved questions and the new
evidence they find (`chat/service/storage/watches.py`). Created and changed only by the
migrations, as the others in `chat/service/storage/tables.py`, on the same metadata."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chat.service.storage.tables import Base, UTCDateTime, new_id, utcnow


class Watch(Base):
    """A user's saved question that keeps watch: its scope (`paper_ids`, `author`,
    `collection_id`, as a chat question's), the answer it had when saved (its passages'
    chunk ids, best first, and the sentences it quoted), and how far the papers that
    arrived since were compared with it: the catalog's rowid, and the time (for papers
    added to its collection since)."""

    __tablename__ = "watches"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    question: Mapped[str] = mapped_column(Text)
    scope: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    chunk_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    cited: Mapped[list[str]] = mapped_column(JSON, default=list)
    checked_rowid: Mapped[int] = mapped_column(Integer, default=0)
    checked_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class WatchAlert(Base):
    """New evidence for a saved question: a newly arrived paper, the passage of it that now
    answers, and the sentence of it quoted; read or not. News found in the owner's own
    upload names it (`upload_id`) and goes when the upload is deleted."""

    __tablename__ = "watch_alerts"
    __table_args__ = (UniqueConstraint("watch_id", "paper_id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    watch_id: Mapped[str] = mapped_column(ForeignKey("watches.id", ondelete="CASCADE"))
    paper_id: Mapped[str] = mapped_column(String(64))
    chunk_id: Mapped[str] = mapped_column(String(200))
    sentence: Mapped[str] = mapped_column(Text)
    citation: Mapped[str] = mapped_column(String(100))
    read: Mapped[bool] = mapped_column(default=False)
    upload_id: Mapped[str | None] = mapped_column(ForeignKey("uploads.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
