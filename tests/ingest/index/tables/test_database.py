"""The catalog's SQLite connections outlive no use: threads that come and go (as AnyIO's
worker threads do, retired when idle) take none with them, so the pool still serves."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy.pool import QueuePool

from ingest.index.tables.database import SQLITE_IDLE, CatalogDb


def _read_in_a_thread(db: CatalogDb, read: list[int]) -> None:
    def run() -> None:
        read.append(db.execute("SELECT COUNT(*) FROM t").fetchone()[0])
        with db:
            db.execute("INSERT INTO t (x) VALUES (1)")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


def test_threads_that_end_leave_their_connections_to_the_others(tmp_path: Path) -> None:
    db = CatalogDb(tmp_path / "catalog.sqlite")
    db.execute("CREATE TABLE t (x INTEGER)")
    read: list[int] = []

    # Fewer than the pool's 40 (past them a checkout would wait 30 s, then fail).
    for _ in range(30):
        _read_in_a_thread(db, read)

    assert read == list(range(30))
    pool = db.engine.pool
    assert isinstance(pool, QueuePool)
    assert pool.checkedout() <= SQLITE_IDLE
    assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 30
    db.close()
