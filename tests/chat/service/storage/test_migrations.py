"""The schema migrations and the database engine, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, func, insert, inspect, select, text
from sqlalchemy.exc import SQLAlchemyError

# The tables of saved questions join the metadata compared with the migrations.
import chat.service.storage.watch_tables  # noqa: F401 - imported for that alone
from chat.service.storage.collections import CollectionUpload
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import current_revision, head_revision, upgrade_database
from chat.service.storage.tables import Base, Conversation, Message, User
from ingest.index.tables.database import normalize_url
from tests.support.running.concurrency import at_once

TABLES = {
    "users",
    "api_keys",
    "sessions",
    "conversations",
    "messages",
    "follows",
    "alerts",
    "feed_tokens",
    "digests",
    "collections",
    "collection_papers",
    "notes",
    "watches",
    "watch_alerts",
    "uploads",
    CollectionUpload.__tablename__,
}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = create_database_engine(database_url)
    yield engine
    engine.dispose()


def _schema(engine: Engine) -> dict[str, list[tuple[str, str]]]:
    inspector = inspect(engine)
    return {
        table: [(c["name"], str(c["type"])) for c in inspector.get_columns(table)]
        for table in inspector.get_table_names()
    }


def _add_conversation(engine: Engine) -> None:
    user = User(id=str(uuid.uuid4()), email="ada@example.org", password_hash="not-a-hash")
    conversation = Conversation(id=str(uuid.uuid4()), user_id=user.id, title="Attention")
    # The message as an earlier revision holds it: only the columns named (and those with
    # defaults), never ones a later revision added.
    message = insert(Message).values(
        conversation_id=conversation.id,
        position=1,
        role="user",
        content="What is attention?",
        sources=[{"n": 1}],
    )
    with session_factory(engine)() as session:
        session.add(user)
        session.flush()
        session.add(conversation)
        session.flush()
        session.execute(message)
        session.commit()


def _counts(engine: Engine) -> dict[str, Any]:
    with session_factory(engine)() as session:
        return {
            model.__tablename__: session.scalar(select(func.count()).select_from(model))
            for model in (User, Conversation, Message)
        }


def test_upgrade_from_empty_creates_every_table(database_url: str, engine: Engine) -> None:
    upgrade_database(database_url)

    tables = set(inspect(engine).get_table_names())
    with engine.connect() as connection:
        revision = current_revision(connection)
    assert tables == {*TABLES, "alembic_version"}
    assert revision == head_revision()


def test_second_upgrade_changes_nothing(database_url: str, engine: Engine) -> None:
    upgrade_database(database_url)
    _add_conversation(engine)
    schema_before, rows_before = _schema(engine), _counts(engine)

    upgrade_database(database_url)

    assert _schema(engine) == schema_before
    assert _counts(engine) == rows_before
    with engine.connect() as connection:
        assert current_revision(connection) == head_revision()


def test_upgrade_keeps_rows_written_at_an_earlier_revision(
    database_url: str, engine: Engine
) -> None:
    upgrade_database(database_url, revision="0001")
    _add_conversation(engine)

    upgrade_database(database_url)

    assert _counts(engine) == {"users": 1, "conversations": 1, "messages": 1}
    with session_factory(engine)() as session:
        message = session.scalars(select(Message)).one()
    assert message.content == "What is attention?"
    assert message.sources == [{"n": 1}]


def test_migrated_schema_matches_the_models(database_url: str, engine: Engine) -> None:
    upgrade_database(database_url)

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, Base.metadata)

    assert differences == []


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    engine = create_database_engine(f"sqlite:///{tmp_path / 'nested' / 'paperchat.sqlite'}")

    with engine.connect() as connection:
        journal = connection.execute(text("PRAGMA journal_mode")).scalar()
        foreign_keys = connection.execute(text("PRAGMA foreign_keys")).scalar()
    engine.dispose()

    assert journal == "wal"
    assert foreign_keys == 1
    assert (tmp_path / "nested" / "paperchat.sqlite").is_file()


def test_sqlite_commits_do_not_wait_for_the_disk(tmp_path: Path) -> None:
    engine = create_database_engine(f"sqlite:///{tmp_path / 'paperchat.sqlite'}")

    with engine.connect() as connection:
        synchronous = connection.execute(text("PRAGMA synchronous")).scalar()
    engine.dispose()

    assert synchronous == 1  # NORMAL: safe in WAL mode, no fsync on every commit


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_bare_postgresql_url_uses_psycopg(scheme: str) -> None:
    url = normalize_url(f"{scheme}://postgres@127.0.0.1:5432/test")

    assert url.drivername == "postgresql+psycopg"
    assert url.database == "test"


@pytest.mark.timeout(120)  # without the lock, concurrent DDL waits on itself
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_nodes_starting_at_once_migrate_one_after_the_other(
    database_url: str, engine: Engine
) -> None:
    failures = at_once(lambda: upgrade_database(database_url), catching=(SQLAlchemyError,))

    assert failures == []
    with engine.connect() as connection:
        assert current_revision(connection) == head_revision()
    assert set(inspect(engine).get_table_names()) >= TABLES
