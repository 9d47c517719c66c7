"""A SQLite file is turned to the WAL journal even while another process writes to it."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from ingest.index.tables.sqlite import use_wal
from tests.support.running.locks import write_lock_held


def _rollback_file(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()


def test_the_switch_waits_for_another_writer_to_let_go(tmp_path: Path) -> None:
    path = tmp_path / "file.sqlite"
    _rollback_file(path)
    connection = sqlite3.connect(path)

    with write_lock_held(path, 0.3) as released:
        use_wal(connection, timeout_s=30)
        switched = time.monotonic()

    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert switched >= released[0]
    connection.close()


def test_a_lock_held_past_the_timeout_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "file.sqlite"
    _rollback_file(path)
    connection = sqlite3.connect(path, timeout=0.1)

    with write_lock_held(path, 1.0), pytest.raises(sqlite3.OperationalError, match="locked"):
        use_wal(connection, timeout_s=0.2)

    connection.close()
