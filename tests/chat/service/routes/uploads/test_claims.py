"""Taking over an upload whose reader stopped, on SQLite and PostgreSQL: readers sweeping
at once take it one alone; an upload whose reader still beats is neither taken nor failed;
a reader that lost its upload to another does not write its outcome over the other's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from chat.service.access.accounts import create_user
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.tables import Upload, utcnow
from chat.service.storage.uploads import (
    beat_uploads,
    claim_upload,
    fail_unbeaten,
    finish_reading,
    get_upload,
)
from tests.support.running.concurrency import at_once

pytestmark = pytest.mark.timeout(120)

READERS = 8
TTL = timedelta(seconds=30)


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


def _reading(sessions: sessionmaker[Session], node: str, beaten_ago: timedelta) -> Upload:
    """An upload `node` is reading, which it last beat for `beaten_ago`."""
    with sessions() as session:
        user = create_user(session, f"{node}@example.org", "a long password")
        upload = Upload(user_id=user.id, filename="mine.pdf", bytes=1, sha256="0" * 64)
        session.add(upload)
        session.commit()
        session.execute(
            update(Upload)
            .where(Upload.id == upload.id)
            .values(reader_node=node, heartbeat_at=utcnow() - beaten_ago)
        )
        session.commit()
        session.expunge(upload)
        return upload


@pytest.mark.parametrize("attempt", range(3))
def test_readers_sweeping_at_once_take_a_stopped_readers_upload_one_alone(
    sessions: sessionmaker[Session], attempt: int
) -> None:
    upload = _reading(sessions, f"stopped-{attempt}", beaten_ago=TTL * 2)
    won: list[str] = []

    def sweep() -> None:
        node = f"reader-{len(won)}-{id(object())}"
        with sessions() as session:
            if claim_upload(session, upload.id, node, utcnow() - TTL):
                won.append(node)

    failures = at_once(sweep, READERS)

    assert failures == []
    assert len(won) == 1
    with sessions() as session:
        assert get_upload(session, upload.user_id, upload.id).reader_node == won[0]


def test_an_upload_whose_reader_beats_is_neither_taken_nor_failed(
    sessions: sessionmaker[Session],
) -> None:
    upload = _reading(sessions, "alive", beaten_ago=TTL * 2)
    with sessions() as session:
        beat_uploads(session, "alive")

        taken = claim_upload(session, upload.id, "other", utcnow() - TTL)
        failed = fail_unbeaten(session, upload.id, utcnow() - TTL, "gone")
        kept = get_upload(session, upload.user_id, upload.id)

    assert not taken
    assert not failed
    assert (kept.status, kept.reader_node) == ("processing", "alive")


def test_a_reader_that_lost_its_upload_does_not_write_its_outcome(
    sessions: sessionmaker[Session],
) -> None:
    upload = _reading(sessions, "slow", beaten_ago=TTL * 2)
    with sessions() as session:
        assert claim_upload(session, upload.id, "taker", utcnow() - TTL)

        late = finish_reading(session, upload.id, "slow", status="failed", reason="late")
        done = finish_reading(session, upload.id, "taker", status="ready", chunks=3)
        kept = get_upload(session, upload.user_id, upload.id)

    assert not late
    assert done
    assert (kept.status, kept.chunks, kept.reason, kept.reader_node) == ("ready", 3, None, None)
