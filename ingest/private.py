"""The data dir is its owner's alone: folders 0700, files 0600.

It holds the account database (password and API-key hashes), the secret key
that signs sessions and the index: no other local user may read any of it.
Folders are made (and an existing one tightened) with `private_dir`, files
that a library creates (SQLite, Chroma, tantivy) with `private_file` before
it opens them; a folder closed to others also hides whatever the libraries
write inside it later.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ingest.errors import PaperchatError

DIR_MODE = 0o700
FILE_MODE = 0o600
# What a process that writes the data dir takes away from new files' modes.
PRIVATE_UMASK = 0o077


class DataDirError(PaperchatError):
    """A folder or file of the data dir that cannot be made or kept private."""


def private_dir(path: Path) -> Path:
    """`path` as a folder only its owner can enter, made with its missing parents."""
    try:
        missing = [path, *(p for p in path.parents if not p.exists())][::-1]
        for folder in missing if not path.exists() else []:
            folder.mkdir(mode=DIR_MODE, exist_ok=True)
        _tighten(path, DIR_MODE)
    except OSError as e:
        raise DataDirError(f"cannot make the folder {str(path)!r}: {e.strerror or e}") from e
    return path


def private_file(path: Path) -> Path:
    """`path` as a file only its owner can read (made empty when missing), in a private folder."""
    private_dir(path.parent)
    try:
        if not path.exists():
            # Only when missing: closing a descriptor of a file drops every POSIX lock this
            # process holds on it, SQLite's included, and another process could then
            # checkpoint and delete the WAL under a connection still writing to it.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
        _tighten(path, FILE_MODE)
    except OSError as e:
        raise DataDirError(f"cannot make the file {str(path)!r}: {e.strerror or e}") from e
    return path


def _tighten(path: Path, mode: int) -> None:
    """Take group and other permissions away from a path this process owns; never from a
    folder shared on purpose, one with the sticky bit (/tmp: a database file put there
    must not lock every other user, PostgreSQL's included, out of it)."""
    info = path.stat()
    if info.st_mode & stat.S_ISVTX:
        return
    if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & ~mode:
        path.chmod(stat.S_IMODE(info.st_mode) & mode)
