"""Who holds an embedded Chroma directory: one process at a time, named in a lock file.

An embedded Chroma (`chromadb.PersistentClient`) keeps its HNSW graphs in the memory of
the process that opened it and writes them back from there; two processes on one
directory overwrite each other's files, which is how an index comes to crash every
process that opens it. So a process claims the directory before it opens it: an
exclusive `flock` on `<dir>.lock` beside it, held until the process ends or lets go,
with the holder's pid, command and start time written in the file for whoever is
refused. A `paperchat serve` that holds it runs the directory as a Chroma server of its
own on a loopback port and publishes its address in the same file; every other process
then reaches the store through that server instead of opening it (`open_chroma`).

The kernel drops the lock with the process that held it, so a killed holder never
leaves a directory claimed.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ingest.errors import PaperchatError

# How long a process waits for a `paperchat serve` that holds the directory, and is
# still starting its Chroma server, to publish the server's address.
PUBLISH_WAIT_S = 120.0


class VectorStoreBusy(PaperchatError):
    """Another process holds the embedded Chroma directory."""


@dataclass(frozen=True)
class Owner:
    """What the holder of a directory wrote of itself."""

    pid: int
    command: str
    started: str
    url: str = ""  # the Chroma server it runs on the directory, once it runs one

    def describe(self) -> str:
        return f"pid {self.pid} (`{self.command}`, since {self.started})"


def lock_path(path: Path) -> Path:
    """The lock file of the Chroma directory `path`: beside it, so that it outlives a
    directory moved aside or rebuilt."""
    return path.with_name(f"{path.name}.lock")


class Claim:
    """This process's hold on one directory; `release` lets go of it."""

    def __init__(self, path: Path, descriptor: int, owner: Owner) -> None:
        self.path = path
        self.descriptor = descriptor  # a child given it keeps the directory claimed
        self.owner = owner

    @property
    def url(self) -> str:
        return self.owner.url

    def publish(self, url: str) -> None:
        """Name the Chroma server this process runs on the directory, for the others."""
        self.owner = Owner(self.owner.pid, self.owner.command, self.owner.started, url)
        _write(self.descriptor, self.owner)

    def release(self) -> None:
        with _LOCK:
            if _CLAIMS.get(_key(self.path)) is not self:
                return
            del _CLAIMS[_key(self.path)]
            os.ftruncate(self.descriptor, 0)
            os.close(self.descriptor)  # closing the descriptor drops the flock


_CLAIMS: dict[str, Claim] = {}
_LOCK = threading.Lock()


def _key(path: Path) -> str:
    return str(path.resolve())


def held(path: Path) -> Claim | None:
    """This process's claim on `path`, if it has one."""
    with _LOCK:
        return _CLAIMS.get(_key(path))


def claim(path: Path, command: str | None = None) -> Claim:
    """Hold `path` for this process (again, if it holds it already), or raise
    `VectorStoreBusy` naming the process that does."""
    with _LOCK:
        existing = _CLAIMS.get(_key(path))
        if existing is not None:
            return existing
        lock = lock_path(path)
        lock.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise VectorStoreBusy(busy_message(path, read_owner(path))) from None
        except OSError:
            os.close(descriptor)
            raise
        owner = Owner(os.getpid(), command or _command_line(), _now())
        _write(descriptor, owner)
        made = Claim(path, descriptor, owner)
        _CLAIMS[_key(path)] = made
        return made


def read_owner(path: Path) -> Owner | None:
    """What the holder of `path` wrote, or None when the file says nothing readable."""
    try:
        state = json.loads(lock_path(path).read_text(encoding="utf-8"))
        return Owner(int(state["pid"]), str(state["command"]), str(state["started"]),
                     str(state.get("url") or ""))  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return None


def current_owner(path: Path) -> Owner | None:
    """The process holding `path` now (this one included), or None when none does."""
    mine = held(path)
    if mine is not None:
        return mine.owner
    lock = lock_path(path)
    try:
        descriptor = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return read_owner(path) or Owner(0, "unknown", "unknown")
    finally:
        os.close(descriptor)
    return None


def published_url(path: Path, wait_s: float = PUBLISH_WAIT_S) -> str:
    """The address of the Chroma server the holder of `path` runs on it, waiting while a
    starting `paperchat serve` has yet to publish it; "" when nobody holds `path`.
    Raises `VectorStoreBusy` when the holder runs no server (it opened the directory
    itself)."""
    deadline = time.monotonic() + wait_s
    while True:
        owner = current_owner(path)
        if owner is None or owner.url:
            return owner.url if owner else ""
        # pid 0: the holder has its lock but has not written its name yet.
        starting = owner.pid == 0 or owner.command.startswith("paperchat serve")
        if not starting or time.monotonic() > deadline:
            raise VectorStoreBusy(busy_message(path, owner))
        time.sleep(0.2)


def busy_message(path: Path, owner: Owner | None) -> str:
    who = owner.describe() if owner else "another process"
    return (
        f"the vector index in {str(path)!r} is open in {who}: two processes writing one "
        "embedded index would damage it. Wait for that command to end or stop it; a running "
        "`paperchat serve` shares the index with every command run beside it"
    )


def _write(descriptor: int, owner: Owner) -> None:
    state = {"pid": owner.pid, "command": owner.command, "started": owner.started}
    if owner.url:
        state["url"] = owner.url
    data = json.dumps(state).encode()
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, data, 0)


def _command_line() -> str:
    """`paperchat ingest abstracts` and the like: the program and its first words."""
    words = [Path(sys.argv[0]).name if sys.argv else "python"]
    words += [w for w in sys.argv[1:4] if not w.startswith("-")]
    if words[0] == "__main__.py":  # python -m chat.cli
        words[0] = "paperchat"
    return " ".join(words)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
