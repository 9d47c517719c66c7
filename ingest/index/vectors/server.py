"""The Chroma server a `paperchat serve` runs on its embedded index: `chroma run` on the
data dir's `chroma/`, on a free loopback port, for as long as the serving process lives.

One process, the server, then holds the directory, and the server's workers and every
command run beside it (an ingest, `index stats`) reach the store over HTTP: many readers
and writers, one owner, which is the way Chroma supports several processes. The child
dies with its parent (PR_SET_PDEATHSIG), inherits the directory's lock (so the directory
stays claimed while it lives), and is started again if it stops while serving; what it
prints goes to `<data dir>/logs/chroma.log`.
"""

from __future__ import annotations

import ctypes
import logging
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from ingest.errors import PaperchatError

log = logging.getLogger(__name__)
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 20.0
# Restarts of a child that stopped on its own, within RESTART_WINDOW_S, before giving up.
RESTARTS = 3
RESTART_WINDOW_S = 300.0
_PR_SET_PDEATHSIG = 1


class VectorServerFailed(PaperchatError):
    """The Chroma server on the embedded index did not start, or stopped."""


def chroma_binary() -> str:
    """The `chroma` command of this environment (beside its Python), or on PATH."""
    beside = Path(sys.executable).with_name("chroma")
    if beside.exists():
        return str(beside)
    found = shutil.which("chroma")
    if found is None:
        raise VectorServerFailed("the `chroma` command is not installed (it comes with chromadb)")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, before exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class VectorServer:
    """`chroma run` on `path`, started by `start` and ended by `stop`."""

    def __init__(self, path: Path, log_path: Path, keep_fds: tuple[int, ...] = ()) -> None:
        self.path = path
        self.log_path = log_path
        self._keep_fds = keep_fds
        self._process: subprocess.Popen[bytes] | None = None
        self._port = 0
        self._stopping = threading.Event()
        self._restarts: list[float] = []
        self._watcher: threading.Thread | None = None
        self.failed: str = ""  # why it is down for good, once it is
        self.stops: list[str] = []  # how each child that stopped on its own ended
        self.started_s = 0.0  # how long the child took to answer, last time it started

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> str:
        """Start the server and wait until it answers; its URL. A child that dies while
        starting (a damaged directory crashes it) raises `VectorServerFailed`."""
        self._port = _free_port()
        self._spawn()
        self._watcher = threading.Thread(target=self._watch, name="chroma-watch", daemon=True)
        self._watcher.start()
        return self.url

    def _spawn(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        command = [chroma_binary(), "run", "--path", str(self.path),
                   "--host", "127.0.0.1", "--port", str(self._port)]  # fmt: skip
        with self.log_path.open("ab") as output:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                pass_fds=self._keep_fds,
                # Out of the terminal's process group: a Ctrl-C stops the server, which
                # stops this child after its own workers, not before them.
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self._process = process
        begun = time.monotonic()
        deadline = begun + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise VectorServerFailed(
                    f"the vector index's server (`chroma run` on {str(self.path)!r}) stopped "
                    f"while starting ({describe_exit(process.returncode)}); see "
                    f"{str(self.log_path)!r}"
                )
            if self.answers():
                self.started_s = time.monotonic() - begun
                return
            time.sleep(0.1)
        self._end(process)
        raise VectorServerFailed(
            f"the vector index's server did not answer within {START_TIMEOUT_S:.0f}s; "
            f"see {str(self.log_path)!r}"
        )

    def stopped(self) -> str:
        """How the child ended on its own ('killed by SIGSEGV'), lately; '' if it has not."""
        process = self._process
        if process is not None and process.poll() is not None and not self._stopping.is_set():
            return describe_exit(process.returncode)
        return self.stops[-1] if self.stops else ""

    def answers(self) -> bool:
        try:
            return httpx.get(f"{self.url}/api/v2/heartbeat", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def _watch(self) -> None:
        """Start the child again when it stops on its own, a few times at most."""
        while not self._stopping.is_set():
            process = self._process
            if process is None or process.poll() is None:
                self._stopping.wait(0.5)
                continue
            if self._stopping.is_set():
                return
            now = time.monotonic()
            self._restarts = [t for t in self._restarts if now - t < RESTART_WINDOW_S]
            how = describe_exit(process.returncode)
            self.stops.append(how)
            if len(self._restarts) >= RESTARTS:
                self.failed = (
                    f"the vector index's server stopped {RESTARTS + 1} times ({how}); "
                    "run `paperchat index check`"
                )
                log.error(self.failed)
                return
            self._restarts.append(now)
            log.error("the vector index's server stopped (%s); starting it again", how)
            try:
                self._spawn()
            except VectorServerFailed as e:
                log.error("%s", e)

    def stop(self) -> None:
        self._stopping.set()
        if self._process is not None:
            self._end(self._process)
        if self._watcher is not None:
            self._watcher.join(timeout=5)

    @staticmethod
    def _end(process: subprocess.Popen[bytes]) -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def describe_exit(code: int | None) -> str:
    """`killed by SIGSEGV`, `exit 1`."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"


@contextmanager
def serving_directory(path: Path, log_path: Path) -> Iterator[VectorServer]:
    """Claim the embedded store in `path` for this `paperchat serve`, run its Chroma server
    and publish the address for every other process, until the block ends."""
    from ingest.index.vectors.owner import claim, held

    if held(path) is not None:  # opened here already: a server beside it would be a 2nd writer
        raise VectorServerFailed(f"this process holds {str(path)!r} already; it cannot serve it")
    mine = claim(path, "paperchat serve")
    server = VectorServer(path, log_path, keep_fds=(mine.descriptor,))
    try:
        mine.publish(server.start())
        yield server
    finally:
        server.stop()
        mine.release()
