from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from ingest.disk import DiskFull, is_disk_full, naming_a_full_disk


def test_enospc_under_another_error_is_a_full_disk_naming_the_folder(tmp_path: Path) -> None:
    def write() -> None:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as e:
            raise RuntimeError("Error in compaction") from e

    with pytest.raises(DiskFull) as raised, naming_a_full_disk(tmp_path):
        write()

    assert str(raised.value).startswith(f"the disk holding the data dir {str(tmp_path)!r} is full")


def test_sqlite_full_database_is_a_full_disk(tmp_path: Path) -> None:
    error = sqlite3.OperationalError("database or disk is full")

    assert is_disk_full(error, tmp_path)


def test_other_errors_pass_unchanged_when_the_disk_has_room(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^bad value$"), naming_a_full_disk(tmp_path):
        raise ValueError("bad value")
