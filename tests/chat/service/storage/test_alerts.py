"""Alerts computed from the catalog's new papers, on SQLite and PostgreSQL: each new paper
a follow takes is one alert, however many workers look at once; a followed paper's new
version is one; papers from before the follow are none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from chat.library.follows import Target
from chat.service.access.accounts import create_user
from chat.service.storage.alerts import list_alerts, mark_read, refresh_alerts, start_rowid
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.follows import add_follow, delete_follow
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.tables import Follow
from ingest.index.catalog import Catalog
from ingest.index.records import Paper


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    opened = Catalog(tmp_path / "catalog.sqlite")
    yield opened
    opened.close()


def _add(catalog: Catalog, *papers: Paper) -> None:
    with catalog.transaction():
        for paper in papers:
            catalog.replace_unit(paper, "metadata", "abstract", paper.title, [])


def _paper(number: int, category: str, version: str = "v1") -> Paper:
    return Paper(
        id=f"2501.{number:05d}",
        title=f"Paper {number}",
        abstract="About graphs.",
        authors="Ada Lovelace, Alan Turing",
        categories=(category,),
        version=version,
        published="2025-01-02",
    )


def test_new_papers_become_one_alert_each_however_often_compared(
    sessions: sessionmaker[Session], catalog: Catalog
) -> None:
    _add(catalog, _paper(1, "cs.CL"))
    with sessions() as session:
        user = create_user(session, "a@example.org", "a long password")
        start = start_rowid(catalog)
        follow, _ = add_follow(session, user.id, Target("category", "cs.CL"), start)
        followed, _ = add_follow(session, user.id, Target("paper", "2501.00001", "v1"), 0)
    _add(catalog, _paper(2, "cs.CL"), _paper(3, "math.GT"), _paper(1, "cs.CL", "v2"))

    with sessions() as first, sessions() as second:
        refresh_alerts(first, catalog, user.id)
        # A worker that read the follows before the first one wrote its alerts.
        second.execute(update(Follow).values(checked_rowid=start, seen_version="v1"))
        refresh_alerts(second, catalog, user.id)
        alerts = {(a.follow_id, a.paper_id, a.version) for a in list_alerts(second, user.id)}
        count = len(list_alerts(second, user.id))
        marked = mark_read(second, user.id, ["2501.00002"])
        delete_follow(second, user.id, followed.id)
        left = [(a.paper_id, a.read) for a in list_alerts(second, user.id)]

    # The paper from before the follow is no alert of the category; its new version is one.
    assert alerts == {(follow.id, "2501.00002", ""), (followed.id, "2501.00001", "v2")}
    assert count == len(alerts)
    assert marked == 1
    assert left == [("2501.00002", True)]
