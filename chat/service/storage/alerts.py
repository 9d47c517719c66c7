"""Alerts: the catalog's papers new to a user's follows, computed when the user looks.

Each follow remembers the catalog rowid up to which it has been compared
(`ingest/index/tables/arrivals.py`). Looking (the alerts, the dock's count, the
"Latest for you" page, the private feed) compares it with the papers added
since, by any process, and records the matches. Two workers doing so at once
write the same alerts: the second's are ignored by the unique constraint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from chat.library.follows import Matcher
from chat.service.storage.follows import list_follows
from chat.service.storage.tables import Alert, Follow, new_id, utcnow
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.tables.arrivals import arrived_after, last_arrival

# Papers compared at one look; a larger ingest is caught up over the next looks.
ARRIVALS_PER_LOOK = 2000
# Alerts listed at most, the newest first.
MAX_ALERTS_LISTED = 500


def refresh_alerts(session: Session, catalog: Catalog, user_id: str) -> None:
    """Record the user's alerts for the papers added since each follow was last compared,
    and for the new versions of followed papers."""
    follows = list_follows(session, user_id)
    rows: list[dict[str, Any]] = []
    watched = [f for f in follows if f.kind != "paper"]
    if watched:
        start = min(f.checked_rowid for f in watched)
        arrived = arrived_after(catalog.db, start, ARRIVALS_PER_LOOK)
        papers = [(rowid, catalog.get_paper(pid)) for rowid, pid in arrived]
        matcher = Matcher(catalog)
        for follow in watched:
            rows += [
                _row(follow, paper)
                for rowid, paper in papers
                if paper is not None
                and rowid > follow.checked_rowid
                and matcher.takes(follow.kind, follow.value, paper)
            ]
        if arrived:
            _advance(session, watched, arrived[-1][0])
    for follow in follows:
        paper = catalog.get_paper(follow.value) if follow.kind == "paper" else None
        if paper is not None and paper.version != follow.seen_version:
            rows.append(_row(follow, paper, paper.version))
            session.execute(
                update(Follow).where(Follow.id == follow.id).values(seen_version=paper.version)
            )
    _insert_new(session, rows)
    session.commit()


def _row(follow: Follow, paper: Paper, version: str = "") -> dict[str, Any]:
    return {
        "id": new_id(),
        "user_id": follow.user_id,
        "follow_id": follow.id,
        "paper_id": paper.id,
        "version": version,
        "read": False,
        "created_at": utcnow(),
    }


def _advance(session: Session, follows: Sequence[Follow], rowid: int) -> None:
    ids = [f.id for f in follows]
    session.execute(
        update(Follow)
        .where(Follow.id.in_(ids), Follow.checked_rowid < rowid)
        .values(checked_rowid=rowid)
    )


def _insert_new(session: Session, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    for start in range(0, len(rows), 500):  # under SQLite's limit of bound values
        statement = dialect.insert(Alert).values(rows[start : start + 500])
        session.execute(
            statement.on_conflict_do_nothing(index_elements=["follow_id", "paper_id", "version"])
        )


def start_rowid(catalog: Catalog) -> int:
    """Where a new follow starts: after the catalog's last paper."""
    return last_arrival(catalog.db)


def list_alerts(session: Session, user_id: str, *, limit: int = MAX_ALERTS_LISTED) -> list[Alert]:
    """The user's alerts, the newest first."""
    query = (
        select(Alert)
        .where(Alert.user_id == user_id)
        .order_by(Alert.created_at.desc(), Alert.paper_id.desc())
        .limit(limit)
    )
    return list(session.scalars(query))


def unread_count(session: Session, user_id: str) -> int:
    query = select(func.count()).where(Alert.user_id == user_id, Alert.read.is_(False))
    return int(session.scalar(query) or 0)


def mark_read(session: Session, user_id: str, paper_ids: Sequence[str] | None) -> int:
    """Mark the user's alerts for `paper_ids` (all when None) read; how many were unread."""
    statement = update(Alert).where(Alert.user_id == user_id, Alert.read.is_(False))
    if paper_ids is not None:
        statement = statement.where(Alert.paper_id.in_(list(paper_ids)))
    result = session.execute(statement.values(read=True))
    session.commit()
    return int(getattr(result, "rowcount", 0))
