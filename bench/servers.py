"""The fake upstream (`bench.upstream`) and `paperchat serve`, each in a process of its own.

The API serves `data_dir` on 127.0.0.1 with `workers` worker processes (one unless
told), a scratch SQLite database holding one user and API key per stream to be
opened, and a rate limit high enough never to turn a stream away. With several
workers, or when asked, Redis shares the limits between them: PAPERCHAT_REDIS_URL
when set, else a `redis-server` of its own on a free port, stopped afterwards.
`Servers.api_cpu` is the CPU of the serve process and every process under it (the
workers, and the Chroma server it runs on the embedded vector index, told apart).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from chat.cli.serve import usable_cores
from tests.support.running.net import unused_port
from tests.support.running.processes import stop_process

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT_S = 600.0
RATE_LIMIT = "1000000/minute"


def create_keys(database_url: str, count: int) -> list[str]:
    """`count` users with one API key each, in a freshly migrated database."""
    from chat.service.access.accounts import create_api_key, hash_password
    from chat.service.storage.db import create_database_engine, session_factory
    from chat.service.storage.migrations import upgrade_database
    from chat.service.storage.tables import User

    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    password_hash = hash_password(secrets.token_urlsafe(16))  # nobody signs in with it
    keys = []
    with session_factory(engine)() as session:
        for n in range(count):
            user = User(email=f"bench-{n}@example.org", password_hash=password_hash)
            session.add(user)
            session.flush()
            keys.append(create_api_key(session, user, "bench").plaintext)
    engine.dispose()
    return keys


@contextmanager
def process(
    command: list[str], env: dict[str, str], log: IO[bytes]
) -> Iterator[subprocess.Popen[bytes]]:
    """`command` running for the duration of the block; stdin is a pipe it may wait on."""
    child = subprocess.Popen(
        command, env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
    )
    try:
        yield child
    finally:
        stop_process(child)


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (the state is the first)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def process_tree(root: int) -> list[int]:
    """`root` and every live process under it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, IndexError):
                continue  # ended while listed
    tree, pending = [], [root]
    while pending:
        pid = pending.pop()
        tree.append(pid)
        pending += children.get(pid, [])
    return tree


def cpu_seconds(pid: int) -> float:
    """CPU time one process has used so far (user and system, all threads); 0 once ended."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _command_words(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def is_chroma_server(pid: int) -> bool:
    words = _command_words(pid)
    return any(Path(w.decode(errors="replace")).name == "chroma" for w in words) and (
        b"run" in words
    )


@dataclass(frozen=True)
class Cpu:
    """CPU seconds used so far by the API: all its processes, and the Chroma server's part."""

    total_s: float
    chroma_s: float

    def __add__(self, other: Cpu) -> Cpu:
        return Cpu(self.total_s + other.total_s, self.chroma_s + other.chroma_s)

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.total_s - other.total_s, self.chroma_s - other.chroma_s)


@dataclass(frozen=True)
class Servers:
    api_url: str
    upstream_url: str
    log: Path
    api_pid: int
    workers: int
    redis: str  # "own redis-server", "PAPERCHAT_REDIS_URL" or "none"

    def api_cpu(self) -> Cpu:
        """The CPU the serve process and every process under it have used so far."""
        total = chroma = 0.0
        for pid in process_tree(self.api_pid):
            used = cpu_seconds(pid)
            total += used
            chroma += used if is_chroma_server(pid) else 0.0
        return Cpu(total, chroma)

    def worker_pids(self) -> list[int]:
        """The processes that answer requests: uvicorn's workers (started through
        multiprocessing's spawn), or the serve process itself when it runs the app alone."""
        spawned = [
            pid
            for pid in process_tree(self.api_pid)[1:]
            if any(b"spawn_main" in word for word in _command_words(pid))
        ]
        return spawned or [self.api_pid]

    def api_cpu_seconds(self) -> float:
        """CPU time the serve process alone has used so far (with one worker, the app's)."""
        return cpu_seconds(self.api_pid)


@dataclass(frozen=True)
class ServerOptions:
    data_dir: Path
    models_cache: Path | None  # None: the data dir's models/
    tokens: int  # pieces the upstream streams per answer
    interval_ms: float  # between two pieces
    log: Path | None  # keep both processes' logs here; None: a scratch file
    llm: str = "openai"  # "extractive": the API answers without the upstream
    workers: int = 1
    redis: bool = False  # Redis shares the limits (it must, with several workers)


def default_workers() -> int:
    """The workers `paperchat serve` runs when Redis shares the limits: one per core."""
    return usable_cores()


@contextmanager
def redis(scratch: Path, log: IO[bytes]) -> Iterator[tuple[str, str]]:
    """PAPERCHAT_REDIS_URL when set, else a `redis-server` of its own on a free port keeping
    nothing on disk, stopped when the block ends; (its URL, which of the two)."""
    given = os.environ.get("PAPERCHAT_REDIS_URL")
    if given:
        yield given, "PAPERCHAT_REDIS_URL"
        return
    port = unused_port()
    command = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
               "--appendonly", "no", "--dir", str(scratch)]  # fmt: skip
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while not redis_answers(port):
            if child.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"redis-server did not start on port {port}")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0", "own redis-server"
    finally:
        stop_process(child)


def redis_answers(port: int) -> bool:
    """Whether a Redis server on 127.0.0.1:`port` answers PING."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """A SIGTERM ends the block as an exit would (SystemExit), so that the processes it
    started are stopped rather than left running; the handler before is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    before = signal.signal(signal.SIGTERM, leave)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextmanager
def servers(options: ServerOptions, keys_needed: int) -> Iterator[tuple[Servers, list[str]]]:
    """The fake upstream and `paperchat serve` in processes of their own, and the API keys."""
    with ExitStack() as stack:
        stack.enter_context(stopped_by_sigterm())
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-serve-")))
        log_path = options.log or scratch / "processes.log"
        log = stack.enter_context(log_path.open("wb"))
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        upstream_command = [sys.executable, "-m", "bench.upstream", "--tokens", str(options.tokens)]
        upstream_command += ["--interval-ms", str(options.interval_ms)]
        upstream = stack.enter_context(process(upstream_command, env, log))
        assert upstream.stdout is not None
        upstream_url = upstream.stdout.readline().decode().strip()
        database_url = f"sqlite:///{scratch / 'bench.sqlite'}"
        keys = create_keys(database_url, keys_needed)
        redis_url, redis_source = "", "none"
        if options.redis or options.workers > 1:
            redis_url, redis_source = stack.enter_context(redis(scratch, log))
        env |= {
            "OPENAI_BASE_URL": upstream_url,
            "OPENAI_API_KEY": "bench",
            "PAPERCHAT_LLM": options.llm,
            "PAPERCHAT_LLM_MODEL": "bench",
            "PAPERCHAT_DATABASE_URL": database_url,
            "PAPERCHAT_SECRET_KEY": secrets.token_urlsafe(32),
            "PAPERCHAT_RATE_LIMIT": RATE_LIMIT,
        }
        if redis_url:
            env["PAPERCHAT_REDIS_URL"] = redis_url
        if options.models_cache:
            env["PAPERCHAT_MODELS_CACHE"] = str(options.models_cache)
        port = unused_port()
        serve = [str(Path(sys.executable).with_name("paperchat")), "serve", "--host", "127.0.0.1"]
        serve += [
            "--port",
            str(port),
            "--workers",
            str(options.workers),
            "--data-dir",
            str(options.data_dir),
        ]
        api = stack.enter_context(process(serve, env, log))
        api_url = f"http://127.0.0.1:{port}"
        wait_until_healthy(api_url, api, log_path)
        yield Servers(api_url, upstream_url, log_path, api.pid, options.workers, redis_source), keys


def wait_until_healthy(url: str, child: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            sys.exit(f"paperchat serve exited with {child.returncode}:\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    sys.exit(f"paperchat serve did not answer within {STARTUP_TIMEOUT_S:g} s")
