"""The catalog's database: a SQLite file by default, PostgreSQL for several machines.

Both go through one SQLAlchemy engine (its dialect, URL handling and connection
pool). The catalog's statements are plain SQL that both databases run alike,
written with `?` for parameters; for PostgreSQL they are handed to psycopg with
its own placeholders. What the two spell differently (a case-insensitive LIKE,
a substring test) comes from `CatalogDb`'s helpers, never from a branch in the
caller.

Reads outside a transaction borrow a pooled connection for one statement and
return its rows at once. `with db:` is one transaction on a connection held by
the calling thread for its length; a `with db:` inside it joins it. SQLite's
transactions take the write lock when they begin (`BEGIN IMMEDIATE`), so two
writers queue instead of failing half way; PostgreSQL's run at READ COMMITTED,
and what must be ordered (the change log, `ingest/index/tables/changes.py`) takes a
lock of its own.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from ingest.index.tables.sqlite import use_wal
from ingest.private import private_file

# How long a process waits for another's write lock before it gives up.
BUSY_TIMEOUT_S = 30.0
# PostgreSQL ends a session that sits this long inside a transaction without a statement, and
# its locks with it: a node stopped mid-transaction (a frozen machine, a paused process)
# would otherwise hold the catalog's write lock, and every other node's writes would wait for
# it. No write of the catalog waits this long between two of its statements.
IDLE_IN_TRANSACTION_S = 60.0
# SQLite connections kept open between uses, at most (the pool holds 8, and 32 more at once).
SQLITE_IDLE = 8

# Called with the transaction's connection just before it commits; raises to refuse it.
CommitGuard = Callable[["CatalogDb"], None]


class Row(tuple):  # type: ignore[type-arg]
    """A row read by index or by column name, as `sqlite3.Row` is."""

    __slots__ = ()
    _columns: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._columns[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._columns)


def _row_class(names: Sequence[str]) -> type[Row]:
    return type("Row", (Row,), {"__slots__": (), "_columns": {n: i for i, n in enumerate(names)}})


class Rows:
    """A statement's rows, read in full (the connection has gone back to the pool)."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return list(self._rows)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)


def normalize_url(url: str | URL) -> URL:
    """The URL with a driver SQLAlchemy can load: bare `postgresql://` means psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def catalog_url(path_or_url: str | Path) -> URL:
    """A SQLAlchemy URL for a catalog given as a file path or as a database URL."""
    text = str(path_or_url)
    if isinstance(path_or_url, Path) or "://" not in text:
        return URL.create("sqlite", database=str(Path(text).resolve()))
    return normalize_url(text)


def shown_location(location: str | Path) -> str:
    """A catalog's location for a message, a URL's password hidden."""
    try:
        return catalog_url(location).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "the configured catalog URL"


# SQLite reads `x IN ()` (an empty list of parameters) as false; PostgreSQL refuses it.
_EMPTY_IN = re.compile(r"\bIN \(\s*\)")


def _placeholders(sql: str) -> str:
    """`?` parameters as psycopg's `%s`; a literal `%` doubled so psycopg leaves it; an
    empty `IN ()` as `IN (NULL)`, which holds for no row, as SQLite's does."""
    sql = _EMPTY_IN.sub("IN (NULL)", sql)
    return sql.replace("%", "%%").replace("?", "%s")


class CatalogDb:
    """The catalog's connections: `execute`, `executemany` and `with db:` transactions."""

    def __init__(self, url: str | Path | URL) -> None:
        parsed = url if isinstance(url, URL) else catalog_url(url)
        self.url = parsed
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite":
            database = parsed.database or ""
            if database and database != ":memory:":
                private_file(Path(database))
            # Pooled connections sit in autocommit mode, holding no snapshot between uses.
            self.engine: Engine = create_engine(
                parsed, pool_size=8, max_overflow=32, connect_args={"check_same_thread": False}
            )
            event.listen(self.engine, "connect", _configure_sqlite)
        else:
            self.engine = create_engine(parsed, pool_pre_ping=True, pool_size=4, max_overflow=8)
            event.listen(self.engine, "connect", _configure_postgresql)
        self._local = threading.local()
        # SQLite: connections between two uses, taken by whichever thread reads next.
        self._idle: list[Any] = []
        self._idle_lock = threading.Lock()

    @property
    def where(self) -> str:
        """The database, for messages (a password hidden)."""
        if self.dialect == "sqlite":
            return str(self.url.database)
        return self.url.render_as_string(hide_password=True)

    # Spellings that differ between the two databases.

    def contains(self, haystack: str, needle: str = "?") -> str:
        """SQL true when `needle` (the next parameter, unless given) occurs in `haystack`;
        case-sensitive. Either may be the parameter `?`."""
        if self.dialect == "sqlite":
            return f"instr({haystack}, {needle}) > 0"
        haystack, needle = (
            "CAST(? AS TEXT)" if part == "?" else part for part in (haystack, needle)
        )
        return f"strpos({haystack}, {needle}) > 0"

    def columns(self, table: str) -> set[str]:
        """The columns of `table`; empty when there is no such table."""
        if self.dialect == "sqlite":
            return {str(row[1]) for row in self.execute(f"PRAGMA table_info({table})")}
        rows = self.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ?",
            (table,),
        )
        return {str(row[0]) for row in rows}

    def lock(self, name: str) -> None:
        """Within a transaction: wait for, then hold until it ends, the catalog-wide lock
        `name`. SQLite's transactions already hold the one write lock."""
        if not self.in_transaction:
            raise RuntimeError("a catalog lock needs a transaction")
        if self.dialect != "sqlite":
            self.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (f"paperchat:{name}",))

    @property
    def ilike(self) -> str:
        """The case-insensitive LIKE operator."""
        return "LIKE" if self.dialect == "sqlite" else "ILIKE"

    # Statements

    def _sql(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else _placeholders(sql)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        with self._connection() as connection:
            cursor = connection.cursor()
            try:
                cursor.execute(self._sql(sql), tuple(params))
                rows = self._rows(cursor)
                return Rows(rows, cursor.rowcount)
            finally:
                cursor.close()

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(row) for row in rows]
        if not batch:
            return
        with self._connection() as connection:
            cursor = connection.cursor()
            try:
                cursor.executemany(self._sql(sql), batch)
            finally:
                cursor.close()

    def _rows(self, cursor: Any) -> list[Any]:
        if cursor.description is None:
            return []
        fetched = cursor.fetchall()
        if self.dialect == "sqlite":
            return list(fetched)  # sqlite3.Row already reads by name
        make = _row_class([column[0] for column in cursor.description])
        return [make(row) for row in fetched]

    # Connections and transactions

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """The thread's transaction connection, or a pooled one for one statement."""
        held = getattr(self._local, "connection", None)
        if held is not None:
            yield held
            return
        proxied = self._checkout()
        try:
            yield self._driver(proxied)
        finally:
            self._checkin(proxied)

    def _checkout(self) -> Any:
        """A connection for one statement or one transaction, given back by `_checkin`. A
        server's comes from the pool. A SQLite file's comes from the idle ones this catalog
        keeps out of the pool (the pool's reset on every return made reads twice as slow):
        none is tied to a thread, so a worker thread that ends takes none with it."""
        if self.dialect != "sqlite":
            return self.engine.raw_connection()
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return self.engine.raw_connection()

    def _checkin(self, proxied: Any) -> None:
        if proxied is None:
            return
        # One left in a transaction (a COMMIT that failed) goes back to the pool, which
        # rolls it back.
        if self.dialect == "sqlite" and not proxied.driver_connection.in_transaction:
            with self._idle_lock:
                if len(self._idle) < SQLITE_IDLE:
                    self._idle.append(proxied)
                    return
        proxied.close()

    def _driver(self, proxied: Any) -> Any:
        return proxied.driver_connection

    @property
    def in_transaction(self) -> bool:
        return getattr(self._local, "connection", None) is not None

    def __enter__(self) -> CatalogDb:
        self.begin()
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if error is None:
            self.commit()
        else:
            self.rollback()

    def begin(self) -> None:
        """A transaction on this thread, or one level deeper in the one it is in."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            return
        proxied = self._checkout()
        try:
            self._open(proxied, self._driver(proxied))
        except BaseException:
            self._checkin(proxied)
            raise

    def _open(self, proxied: Any, connection: Any) -> None:
        """Begin this thread's transaction on `connection` (checked out as `proxied`, or
        None when its owner gives it back)."""
        connection.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")
        self._local.proxied, self._local.connection, self._local.depth = proxied, connection, 1
        self._local.guards = []

    @contextmanager
    def transaction_on(self, connection: Connection) -> Iterator[None]:
        """This thread's transaction on `connection`, a SQLAlchemy connection of `engine`
        that a tool needs to run its own statements in it (Alembic): begun as `with db:`
        begins, committed at the end (rolled back on an error), the tool's statements and
        `execute`'s alike inside it. The caller closes `connection` afterwards."""
        if self.in_transaction:
            raise RuntimeError("a transaction is already open on this thread")
        driver = connection.connection.driver_connection
        if driver is None:
            raise RuntimeError("the connection is closed")
        self._open(None, driver)
        try:
            # The tool's statements then find SQLAlchemy in a transaction, and begin none.
            connection.exec_driver_sql("SELECT 1")
            yield
        except BaseException:
            if self.in_transaction:
                self.rollback()
            raise
        self.commit()

    def guard(self, check: CommitGuard) -> None:
        """Have `check` run inside the current transaction just before it commits."""
        if not self.in_transaction:
            raise RuntimeError("a commit guard needs a transaction")
        self._local.guards.append(check)

    def commit(self) -> None:
        if not self.in_transaction:
            raise RuntimeError(
                "no transaction to commit on this thread: none was begun, or a `with` inside it"
                " rolled it back"
            )
        self._local.depth -= 1
        if self._local.depth:
            return
        try:
            for check in self._local.guards:
                check(self)
        except BaseException:
            self._end("ROLLBACK")
            raise
        self._end("COMMIT")

    def rollback(self) -> None:
        """Undo the whole transaction, however deep the `with db:` that failed."""
        self._local.depth = 0
        self._end("ROLLBACK")

    def _end(self, statement: str) -> None:
        proxied, connection = self._local.proxied, self._local.connection
        self._local.proxied = self._local.connection = None
        self._local.depth = 0
        try:
            connection.execute(statement)
        finally:
            self._checkin(proxied)

    def close(self) -> None:
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for proxied in idle:
            proxied.close()
        self.engine.dispose()


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # statements commit alone; BEGIN is ours
    dbapi_connection.row_factory = sqlite3.Row
    use_wal(dbapi_connection, BUSY_TIMEOUT_S)
    dbapi_connection.execute("PRAGMA synchronous = NORMAL")
    dbapi_connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


def _configure_postgresql(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.autocommit = True  # statements commit alone; BEGIN is ours
    cursor = dbapi_connection.cursor()
    cursor.execute(f"SET idle_in_transaction_session_timeout = {int(IDLE_IN_TRANSACTION_S * 1000)}")
    cursor.close()
