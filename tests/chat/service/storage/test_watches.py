"""Saved questions and their news on SQLite and PostgreSQL: their owner's alone, news kept
once a paper, bounded in number."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from sqlalchemy.orm import Session, sessionmaker

from chat.rag.watching import Baseline, Evidence
from chat.service.access.accounts import create_user
from chat.service.storage import watches
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.watch_tables import WatchAlert
from chat.service.storage.watches import (
    NewsPapers,
    Scope,
    TooManyWatches,
    add_watch,
    delete_watch,
    get_watch,
    list_watch_alerts,
    list_watches,
    mark_watch_alerts_read,
    record_news,
    unread_watch_alerts,
)
from ingest.uploads import CATALOG_FILE

pytestmark = pytest.mark.timeout(120)

BASELINE = Baseline(("2007.01282#abstract-0@ab",), ("Passages are read together.",))
NEWS = Evidence("2101.00001", "2101.00001#abstract-0@cd", "A new reader.", "[arXiv:2101.00001]", 0)


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


def _user(sessions: sessionmaker[Session], email: str) -> str:
    with sessions() as session:
        return create_user(session, email, "a long password").id


def test_a_saved_question_is_its_owners_alone(sessions: sessionmaker[Session]) -> None:
    owner, other = _user(sessions, "owner@example.org"), _user(sessions, "other@example.org")
    scope = Scope(("2007.01282",), "Gautier Izacard", None)

    with sessions() as session:
        made = add_watch(session, owner, "How are passages read?", scope, BASELINE, 7)
        seen_by_other = get_watch(session, other, made.id)
        deleted_by_other = delete_watch(session, other, made.id)
        kept = get_watch(session, owner, made.id)
        others = list_watches(session, other)

    assert seen_by_other is None
    assert deleted_by_other is False
    assert kept is not None
    assert (kept.question, kept.checked_rowid, Scope.of(kept.scope)) == (
        "How are passages read?",
        7,
        scope,
    )
    assert (kept.chunk_ids, kept.cited) == (list(BASELINE.chunk_ids), list(BASELINE.cited))
    assert others == []


def test_news_is_kept_once_a_paper_and_read_by_its_owner(sessions: sessionmaker[Session]) -> None:
    owner, other = _user(sessions, "owner@example.org"), _user(sessions, "other@example.org")
    with sessions() as session:
        watch = add_watch(session, owner, "How are passages read?", Scope(), BASELINE, 0)
        record_news(session, watch, [NEWS])
        session.commit()
        record_news(session, watch, [NEWS])  # a second worker's look at once
        session.commit()

        listed = list_watch_alerts(session, owner)
        unread_before = unread_watch_alerts(session, owner)
        marked_by_other = mark_watch_alerts_read(session, other, None)
        marked = mark_watch_alerts_read(session, owner, [NEWS.paper_id])
        session.commit()
        unread_after = unread_watch_alerts(session, owner)
        gone = delete_watch(session, owner, watch.id)
        after_delete = list_watch_alerts(session, owner)

    assert [(a.paper_id, a.sentence, a.citation, w.id) for a, w in listed] == [
        (NEWS.paper_id, NEWS.sentence, NEWS.citation, watch.id)
    ]
    assert (unread_before, marked_by_other, marked, unread_after) == (1, 0, 1, 0)
    assert gone is True
    assert after_delete == []


def test_a_user_keeps_at_most_so_many_questions(sessions: sessionmaker[Session]) -> None:
    owner = _user(sessions, "owner@example.org")
    with sessions() as session:
        for number in range(2):
            add_watch(session, owner, f"Question {number}?", Scope(), Baseline(), 0, max_watches=2)

        with pytest.raises(TooManyWatches, match="at most 2 questions"):
            add_watch(session, owner, "One more?", Scope(), Baseline(), 0, max_watches=2)

        assert len(list_watches(session, owner)) == 2


def test_a_listing_opens_each_uploads_catalog_once_for_all_its_news(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Path] = []
    closed: list[Path] = []

    class Catalog:  # an upload's catalog, counted
        def __init__(self, path: Path) -> None:
            self.path = path
            opened.append(path)

        def get_paper(self, paper_id: str) -> str:
            return f"{self.path.parent.name}/{paper_id}"

        def close(self) -> None:
            closed.append(self.path)

    monkeypatch.setattr(watches, "Catalog", Catalog)
    for upload in ("up1", "up2"):
        (tmp_path / "u" / upload).mkdir(parents=True)
        (tmp_path / "u" / upload / CATALOG_FILE).touch()
    library = SimpleNamespace(get_paper=lambda paper_id: f"library/{paper_id}")
    watcher = cast(
        Any, SimpleNamespace(uploads_root=tmp_path, retriever=SimpleNamespace(catalog=library))
    )
    alerts = [
        WatchAlert(user_id="u", paper_id=paper, upload_id=upload)
        for upload, paper in [("up1", "a"), ("up1", "b"), ("up2", "c"), (None, "d"), ("up3", "e")]
    ]

    with NewsPapers(watcher) as papers:
        found = [cast(Any, papers.paper(alert)) for alert in alerts]

    assert found == ["up1/a", "up1/b", "up2/c", "library/d", None]  # up3 has no catalog here
    assert [path.parent.name for path in opened] == ["up1", "up2"]
    assert sorted(closed) == sorted(opened)
