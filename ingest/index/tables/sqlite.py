"""SQLite files as the catalog and the service's database open them: in the WAL journal.

WAL lets readers read while one process writes. Turning a file to it takes the file alone,
and while another connection holds the write lock of a file still in the rollback journal
SQLite refuses the switch at once ("database is locked") instead of waiting for the lock,
as it waits for any other. Two processes opening a new file together meet exactly that.
"""

from __future__ import annotations

import sqlite3
import time

# How often the switch is tried again while another process holds the lock.
RETRY_S = 0.05


def use_wal(connection: sqlite3.Connection, timeout_s: float) -> None:
    """Turn `connection`'s file to the WAL journal, waiting up to `timeout_s` for another
    process's write lock; sqlite3.OperationalError past that, as for any locked write."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(RETRY_S)
        else:
            return
