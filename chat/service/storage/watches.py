"""Questions that keep watch, always through their owner: saved with their scope and the
answer they had, and asked again when the user looks, for the papers arrived since.

As alerts are (`chat/service/storage/alerts.py`), news is computed when the user looks:
each watch keeps the catalog rowid (and, for a collection's papers, the time) up to which
it was compared. A look compares at most `WATCH_CHECKS_PER_LOOK` questions that have papers
new in their scope; the others wait for the next look. Two workers comparing at once write
the same news: the second's is ignored by the unique constraint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from chat.library.authors import AuthorNotFound, author_filter
from chat.rag.retrieval.retriever import Retriever
from chat.rag.watching import Baseline, Evidence, Watcher
from chat.service.storage.collections import (
    CollectionNotFound,
    CollectionUpload,
    get_collection,
    paper_ids,
)
from chat.service.storage.tables import CollectionPaper, Upload, new_id, utcnow
from chat.service.storage.watch_tables import Watch, WatchAlert
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Paper, normalise_paper_id
from ingest.index.tables.arrivals import arrived_after, last_arrival
from ingest.index.vectors.file_store import VectorFile
from ingest.uploads import CATALOG_FILE, LEXICAL_FOLDER

MAX_WATCHES = 50
# Saved questions asked again at one look; the others are asked at the next looks.
WATCH_CHECKS_PER_LOOK = 8
# Papers compared at one look, as for alerts.
ARRIVALS_PER_LOOK = 2000
# The owner's uploads a saved question is asked of at one look, each in its own index.
UPLOADS_PER_LOOK = 20
MAX_WATCH_ALERTS_LISTED = 500


class TooManyWatches(PaperchatError, ValueError):
    """The user already keeps as many questions on watch as a user may."""


@dataclass(frozen=True)
class Scope:
    """What a saved question is asked of, as a chat question's scope."""

    paper_ids: tuple[str, ...] = ()
    author: str | None = None
    collection_id: str | None = None

    def data(self) -> dict[str, Any]:
        return {
            "paper_ids": list(self.paper_ids),
            "author": self.author,
            "collection_id": self.collection_id,
        }

    @classmethod
    def of(cls, data: dict[str, Any]) -> Scope:
        return cls(
            tuple(data.get("paper_ids") or ()), data.get("author"), data.get("collection_id")
        )


def scope_filters(session: Session, catalog: Catalog, user_id: str, scope: Scope) -> Filters:
    """The scope as retrieval filters, resolved as it is now: the collection's papers (only
    those of `paper_ids` among them, when it names some), the author's. CollectionNotFound,
    AuthorNotFound when they are gone."""
    wanted = [normalise_paper_id(p) for p in scope.paper_ids]
    if scope.collection_id is not None:
        held = paper_ids(session, get_collection(session, user_id, scope.collection_id))
        wanted = [p for p in held if p in set(wanted)] if wanted else held
        if not wanted:
            # A collection with none of them: nothing to answer from, not the whole index.
            return Filters(author_papers=())
    return author_filter(catalog, Filters(paper_ids=tuple(wanted), author=scope.author or ""))


def add_watch(
    session: Session,
    user_id: str,
    question: str,
    scope: Scope,
    baseline: Baseline,
    checked_rowid: int,
    *,
    max_watches: int = MAX_WATCHES,
) -> Watch:
    """Keep watch on `question`; the papers after `checked_rowid` will be compared."""
    count = session.scalar(select(func.count()).where(Watch.user_id == user_id)) or 0
    if count >= max_watches:
        raise TooManyWatches(f"a user keeps at most {max_watches} questions on watch")
    watch = Watch(
        user_id=user_id,
        question=question,
        scope=scope.data(),
        chunk_ids=list(baseline.chunk_ids),
        cited=list(baseline.cited),
        checked_rowid=checked_rowid,
        checked_at=utcnow(),
    )
    session.add(watch)
    session.commit()
    return watch


def list_watches(session: Session, user_id: str) -> list[Watch]:
    """The user's saved questions, the oldest first."""
    query = select(Watch).where(Watch.user_id == user_id).order_by(Watch.created_at, Watch.id)
    return list(session.scalars(query))


def get_watch(session: Session, user_id: str, watch_id: str) -> Watch | None:
    return session.scalar(select(Watch).where(Watch.id == watch_id, Watch.user_id == user_id))


def delete_watch(session: Session, user_id: str, watch_id: str) -> bool:
    """Stop keeping watch (its news goes with it); False when the user has no such one."""
    deleted = session.execute(delete(Watch).where(Watch.id == watch_id, Watch.user_id == user_id))
    session.commit()
    return bool(getattr(deleted, "rowcount", 0))


def start_rowid(catalog: Catalog) -> int:
    """Where a new watch starts: after the catalog's last paper."""
    return last_arrival(catalog.db)


def refresh_watches(session: Session, watcher: Watcher, user_id: str) -> None:
    """Ask the user's saved questions again over the papers new in their scopes, and record
    the news they find; at most `WATCH_CHECKS_PER_LOOK` of them at one look."""
    watches = sorted(list_watches(session, user_id), key=lambda w: (w.checked_at, w.id))
    if not watches:
        return
    catalog = watcher.retriever.catalog
    start = min(w.checked_rowid for w in watches)
    arrived = arrived_after(catalog.db, start, ARRIVALS_PER_LOOK)
    now, asked = utcnow(), 0
    for watch in watches:
        upto = max(watch.checked_rowid, arrived[-1][0] if arrived else 0)
        new = {p for rowid, p in arrived if rowid > watch.checked_rowid}
        scope = Scope.of(watch.scope)
        if scope.collection_id is not None:
            new |= _added_since(session, scope.collection_id, watch.checked_at)
        try:
            filters = scope_filters(session, catalog, user_id, scope)
        except (CollectionNotFound, AuthorNotFound):
            new = set()  # its collection or author is gone: nothing is in its scope
            filters = Filters()
        if filters.matches_nothing:
            new = set()
        elif filters.searched_papers:
            new &= set(filters.searched_papers)
        uploads, upto_upload = _uploads_new_to(session, watcher, watch, scope)
        checked_at = min(max(now, watch.checked_at), upto_upload or now)
        if new or uploads:
            if asked >= WATCH_CHECKS_PER_LOOK:
                continue
            asked += 1
            if new:
                evidence = watcher.news(watch.question, filters, _baseline(watch), new)
                record_news(session, watch, evidence)
            for upload, folder in uploads:
                record_news(session, watch, _upload_news(watcher, watch, upload, folder), upload.id)
        session.execute(
            update(Watch)
            .where(Watch.id == watch.id)
            .values(checked_rowid=upto, checked_at=max(checked_at, watch.checked_at))
        )
    session.commit()


def _baseline(watch: Watch) -> Baseline:
    return Baseline(tuple(watch.chunk_ids), tuple(watch.cited))


def _added_since(session: Session, collection_id: str, since: datetime) -> set[str]:
    query = select(CollectionPaper.paper_id).where(
        CollectionPaper.collection_id == collection_id, CollectionPaper.added_at > since
    )
    return set(session.scalars(query))


def _uploads_new_to(
    session: Session, watcher: Watcher, watch: Watch, scope: Scope
) -> tuple[list[tuple[Upload, Path]], datetime | None]:
    """The owner's uploads read since the watch was last compared, in its scope, with their
    folders: every one for a question over the whole library, those in its collection
    (or added to it since) for a collection's; none for one naming papers or an author.
    And when there are more than `UPLOADS_PER_LOOK`, when the last one taken was read: the
    others are compared at the next looks. An upload whose index is not in this node's
    uploads folder is left out (the nodes share one uploads folder)."""
    root = watcher.uploads_root
    if root is None or scope.paper_ids or scope.author:
        return [], None
    since = watch.checked_at
    query = select(Upload).where(
        Upload.user_id == watch.user_id, Upload.status == "ready", Upload.doc_id.is_not(None)
    )
    if scope.collection_id is None:
        query = query.where(Upload.updated_at > since)
    else:
        query = query.join(CollectionUpload, CollectionUpload.upload_id == Upload.id).where(
            CollectionUpload.collection_id == scope.collection_id,
            or_(Upload.updated_at > since, CollectionUpload.added_at > since),
        )
    query = query.order_by(Upload.updated_at, Upload.id).limit(UPLOADS_PER_LOOK)
    found = list(session.scalars(query))
    more = (
        found[-1].updated_at if len(found) == UPLOADS_PER_LOOK and not scope.collection_id else None
    )
    folders = [(upload, root / upload.user_id / upload.id) for upload in found]
    held = [(upload, folder) for upload, folder in folders if (folder / CATALOG_FILE).is_file()]
    return held, more


def _upload_news(watcher: Watcher, watch: Watch, upload: Upload, folder: Path) -> list[Evidence]:
    """The saved question asked of the upload's own index: its news, cited as the upload's
    answers cite it."""
    catalog = Catalog(folder / CATALOG_FILE)
    try:
        library = watcher.retriever
        embedder = library.embedder
        retriever = Retriever(
            catalog,
            VectorFile(folder, embedder.name),
            LexicalIndex(folder / LEXICAL_FOLDER),
            embedder,
            library.config,
        )
        arrived = {upload.doc_id} if upload.doc_id else set()
        return watcher.over(retriever).news(watch.question, Filters(), _baseline(watch), arrived)
    finally:
        catalog.close()


def _row(watch: Watch, evidence: Evidence, upload_id: str | None) -> dict[str, Any]:
    return {
        "id": new_id(),
        "user_id": watch.user_id,
        "watch_id": watch.id,
        "paper_id": evidence.paper_id,
        "chunk_id": evidence.chunk_id,
        "sentence": evidence.sentence,
        "citation": evidence.citation,
        "read": False,
        "upload_id": upload_id,
        "created_at": utcnow(),
    }


def record_news(
    session: Session, watch: Watch, evidence: Sequence[Evidence], upload_id: str | None = None
) -> None:
    """Keep the news `evidence` brings `watch` (found in the owner's upload `upload_id`,
    when given), once a paper (news already kept stays as it is, read or not); the caller
    commits."""
    rows = [_row(watch, found, upload_id) for found in evidence]
    if not rows:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = dialect.insert(WatchAlert).values(rows)
    session.execute(statement.on_conflict_do_nothing(index_elements=["watch_id", "paper_id"]))


def list_watch_alerts(
    session: Session, user_id: str, *, limit: int = MAX_WATCH_ALERTS_LISTED
) -> list[tuple[WatchAlert, Watch]]:
    """The news for the user's saved questions, the newest first, each with its question."""
    query = (
        select(WatchAlert, Watch)
        .join(Watch, Watch.id == WatchAlert.watch_id)
        .where(WatchAlert.user_id == user_id)
        .order_by(WatchAlert.created_at.desc(), WatchAlert.paper_id.desc())
        .limit(limit)
    )
    return [(alert, watch) for alert, watch in session.execute(query)]


def unread_watch_alerts(session: Session, user_id: str) -> int:
    query = select(func.count()).where(WatchAlert.user_id == user_id, WatchAlert.read.is_(False))
    return int(session.scalar(query) or 0)


def mark_watch_alerts_read(session: Session, user_id: str, paper_ids: Sequence[str] | None) -> int:
    """Mark the news about `paper_ids` (all when None) read; how many were unread. The caller
    commits."""
    statement = update(WatchAlert).where(WatchAlert.user_id == user_id, WatchAlert.read.is_(False))
    if paper_ids is not None:
        statement = statement.where(WatchAlert.paper_id.in_(list(paper_ids)))
    result = session.execute(statement.values(read=True))
    return int(getattr(result, "rowcount", 0))


class NewsPapers:
    """The papers one listing's news is about: the library's, or for news found in the
    owner's upload, the upload's own record; each upload's catalog is opened once for all
    the news found in it, and closed with the listing."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher
        self._uploads: dict[Path, Catalog | None] = {}

    def __enter__(self) -> NewsPapers:
        return self

    def __exit__(self, *_: object) -> None:
        for catalog in self._uploads.values():
            if catalog is not None:
                catalog.close()
        self._uploads.clear()

    def paper(self, alert: WatchAlert) -> Paper | None:
        """The paper `alert` is news about; None once it is gone (or the upload's index is
        in another node's uploads folder)."""
        if alert.upload_id is None:
            return self.watcher.retriever.catalog.get_paper(alert.paper_id)
        if self.watcher.uploads_root is None:
            return None
        path = self.watcher.uploads_root / alert.user_id / alert.upload_id / CATALOG_FILE
        if path not in self._uploads:
            self._uploads[path] = Catalog(path) if path.is_file() else None
        catalog = self._uploads[path]
        return None if catalog is None else catalog.get_paper(alert.paper_id)


def news_page(alert: WatchAlert) -> str | None:
    """The page of news found in the owner's upload, its reader; None for the library's
    papers, which have their own pages."""
    return None if alert.upload_id is None else f"/uploads/{quote(alert.upload_id)}/read"


def news_line(question: str, alert: WatchAlert) -> str:
    """The news as the digest, the feed and Latest for you say it."""
    return f"New for your question “{question}”: {alert.sentence} {alert.citation}"
