"""A write that fails because the disk is full says so, and names the data dir.

SQLite says "database or disk is full", Chroma "Error in compaction ...",
tantivy an I/O error 28: none of them names the folder, and Chroma's does
not even say why. A failure while the data dir is written is looked at
here: an ENOSPC anywhere in its chain of causes, one of those messages, or
a disk with (next to) nothing left makes it a `DiskFull` that says which disk.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ingest.errors import PaperchatError

# With less free space than this, a write that failed is taken to have failed for want of it.
NEARLY_FULL_BYTES = 16 * 1024 * 1024
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_FULL_MARKERS = ("no space left", "disk is full", "os error 28", "quota exceeded", "enospc")


class DiskFull(PaperchatError, OSError):
    """The disk holding the data dir has no room left for what had to be written."""


def free_bytes(folder: Path) -> int | None:
    """Free space on the disk holding `folder` (or its nearest existing parent)."""
    for candidate in (folder, *folder.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def is_disk_full(error: BaseException, folder: Path) -> bool:
    """Whether `error`, raised while writing in `folder`, comes from a full disk."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _FULL_ERRNOS:
            return True
        if any(marker in str(current).lower() for marker in _FULL_MARKERS):
            return True
        current = current.__cause__ or current.__context__
    free = free_bytes(folder)
    return free is not None and free < NEARLY_FULL_BYTES


_RUN_AGAIN = (
    "make room and run the command again"
    " (what was written is kept; the next run repairs a half-written batch)"
)


def disk_full_message(folder: Path, what_next: str = _RUN_AGAIN) -> str:
    free = free_bytes(folder)
    room = f" ({free / 1024 / 1024:.1f} MB free)" if free is not None else ""
    return f"the disk holding the data dir {str(folder)!r} is full{room}: {what_next}"


@contextmanager
def naming_a_full_disk(folder: Path) -> Iterator[None]:
    """Turn a failure of a full disk under `folder` into a `DiskFull` naming it."""
    try:
        yield
    except DiskFull:
        raise
    except Exception as e:  # any library's write error may hide a full disk
        if is_disk_full(e, folder):
            raise DiskFull(disk_full_message(folder)) from e
        raise
