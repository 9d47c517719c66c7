"""Another process's write lock on a SQLite file, held for a while, then let go."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def write_lock_held(path: Path, seconds: float) -> Iterator[list[float]]:
    """Hold `path`'s write lock (BEGIN IMMEDIATE) from another connection for `seconds`
    after entry; yields a list that gets the moment (time.monotonic) it was let go."""
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    released: list[float] = []

    def release() -> None:
        writer.execute("COMMIT")
        released.append(time.monotonic())

    timer = threading.Timer(seconds, release)
    timer.start()
    try:
        yield released
    finally:
        timer.join()
        writer.close()
