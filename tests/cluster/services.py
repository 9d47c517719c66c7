"""The services a cluster of paperchat nodes shares, each started here on its own port on
127.0.0.1: a PostgreSQL cluster made by `initdb` in a temporary directory, `chroma run`,
Redis, and `paperchat serve` nodes with data dirs of their own."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.data import ROOT
from tests.support.running.cli import command, environment
from tests.support.running.net import unused_port
from tests.support.running.processes import stop_process

SECRET = "one key every node of the cluster shares"


def _wait(ready: Callable[[], bool], process: subprocess.Popen[bytes], what: str, log: Path,
          timeout: float = 120) -> None:  # fmt: skip
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{what} did not start; its log:\n{log.read_text(errors='replace')}")
        time.sleep(0.2)


def _postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL's initdb is not installed (Debian: postgresql)")
    return found[-1].parent


@dataclass
class Postgres:
    url: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        """Stop the server now (its clients see the database go away)."""
        stop_process(self.process)


@contextmanager
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL cluster of its own, trust auth. Run as the `postgres` user when this
    process is root (PostgreSQL refuses to run as root)."""
    binaries = _postgres_bin()
    home = Path(tempfile.mkdtemp(prefix="paperchat-pg-"))
    as_postgres: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(home, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    data, log = home / "data", home / "server.log"
    subprocess.run(
        [*as_postgres, str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U",
         "postgres", "--no-sync", "-E", "UTF8"],
        check=True, capture_output=True,
    )  # fmt: skip
    port = unused_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*as_postgres, str(binaries / "postgres"), "-D", str(data), "-p", str(port),
             "-k", str(home), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
             "-c", "max_connections=200"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def ready() -> bool:
        done = subprocess.run(
            [str(binaries / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
            capture_output=True,
        )
        return done.returncode == 0

    try:
        _wait(ready, process, "PostgreSQL", log)
        yield Postgres(url, process)
    finally:
        stop_process(process)
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def chroma(root: Path) -> Iterator[str]:
    """`chroma run` with its files under `root`; yields its URL."""
    port = unused_port()
    log = root / "chroma.log"
    binary = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "chroma"
    if not binary.exists():
        binary = Path(shutil.which("chroma") or "chroma")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(binary), "run", "--path", str(root / "chroma"), "--host", "127.0.0.1",
             "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: _answers(f"{url}/api/v2/heartbeat"), process, "chroma run", log)
        yield url
    finally:
        stop_process(process)


@contextmanager
def redis(root: Path) -> Iterator[str]:
    """A Redis of its own, keeping nothing on disk; yields its URL."""
    port = unused_port()
    log = root / "redis.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
             "--appendonly", "no", "--dir", str(root)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def ready() -> bool:
        done = subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True)
        return done.stdout.strip() == b"PONG"

    try:
        _wait(ready, process, "Redis", log)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(process)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class Shared:
    """What every node of one library is configured with."""

    database_url: str
    chroma_url: str
    redis_url: str
    models: Path
    extra: dict[str, str] = field(default_factory=dict)

    def env(self, data_dir: Path, **more: str) -> dict[str, str]:
        return environment(
            data_dir,
            self.models,
            PAPERCHAT_DATABASE_URL=self.database_url,
            PAPERCHAT_CHROMA_URL=self.chroma_url,
            PAPERCHAT_REDIS_URL=self.redis_url,
            PAPERCHAT_SECRET_KEY=SECRET,
            **self.extra,
            **more,
        )


class Node:
    """`paperchat serve` with a data dir of its own."""

    def __init__(self, name: str, shared: Shared, root: Path) -> None:
        self.name = name
        self.data_dir = root / name
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.env = shared.env(self.data_dir)
        self.port = unused_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = root / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command("serve", "--host", "127.0.0.1", "--port", str(self.port)),
                env=self.env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait(lambda: _answers(f"{self.url}/api/health"), self.process, self.name, self.log,
              timeout=180)  # fmt: skip

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None

    def health(self) -> dict[str, object]:
        return dict(httpx.get(f"{self.url}/api/health", timeout=10).json())


class Worker:
    """`paperchat worker` with a data dir of its own, taking jobs from the shared queue."""

    def __init__(self, name: str, shared: Shared, root: Path, lease_s: int = 5) -> None:
        self.name = name
        self.data_dir = root / name
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.env = shared.env(self.data_dir)
        self.lease_s = lease_s
        self.log = root / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, **extra: str) -> subprocess.Popen[bytes]:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command("worker", "--lease", str(self.lease_s)),
                env={**self.env, **extra}, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        return self.process

    def stopped(self) -> bool:
        """Whether the process is stopped by a signal (state T in /proc)."""
        if self.process is None or self.process.poll() is not None:
            return False
        stat = Path(f"/proc/{self.process.pid}/stat").read_text()
        return stat.rpartition(")")[2].split()[0] == "T"

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            stop_process(self.process)
