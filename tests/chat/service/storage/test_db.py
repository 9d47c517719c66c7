"""The service's SQLite database: opened in the WAL journal, even while another process
writes to a new file."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from chat.service.storage.db import create_database_engine
from tests.support.running.locks import write_lock_held


def test_a_new_sqlite_database_opens_while_another_process_writes_to_it(tmp_path: Path) -> None:
    path = tmp_path / "paperchat.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    engine = create_database_engine(f"sqlite:///{path}")

    with write_lock_held(path, 0.3) as released, engine.connect() as connection:
        connected = time.monotonic()
        mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()

    assert mode == "wal"
    assert connected >= released[0]
    engine.dispose()
