"""The database engine and its sessions, built from one SQLAlchemy URL.

SQLite (the default, a file in the data dir) runs in WAL mode with foreign
keys enforced and `synchronous=NORMAL`: a commit does not wait for the disk
(7 ms each here, and every chat turn commits a few times; at 200 concurrent
streams they queued for seconds). WAL keeps the file consistent after a
crash either way; a power cut may lose the last commits. PostgreSQL goes
through psycopg 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, sessionmaker

from ingest.errors import PaperchatError
from ingest.index.tables.database import normalize_url
from ingest.index.tables.sqlite import use_wal
from ingest.private import private_file

# How long a write waits for SQLite's single writer before "database is locked" (a 500).
# 5 s was too short: 200 simultaneous streams on a loaded two-core machine queued
# longer and 2 of them failed. Now as long as the connection pool's own wait.
SQLITE_BUSY_TIMEOUT_MS = 30_000


class DatabaseError(PaperchatError):
    """The database cannot be reached, migrated or written to."""


def display_url(url: str | URL) -> str:
    """`url` quoted for a message, its password hidden."""
    return repr(make_url(url).render_as_string(hide_password=True))


def create_database_engine(url: str | URL) -> Engine:
    """An engine for `url`; a SQLite file's folder is created when missing."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        private_file(Path(parsed.database))
    engine = create_engine(parsed)
    event.listen(engine, "connect", _configure_sqlite)
    return engine


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    use_wal(dbapi_connection, SQLITE_BUSY_TIMEOUT_MS / 1000)
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions whose objects stay readable after commit (they are handed to the API)."""
    return sessionmaker(bind=engine, expire_on_commit=False)
