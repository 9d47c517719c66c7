"""The fake upstream (`bench.upstream`) and `paperchat serve`, each in a process of its own.

The API serves `data_dir` on 127.0.0.1 with one worker, a scratch SQLite
database holding one user and API key per stream to be opened, and a rate
limit high enough never to turn a stream away.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

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


@dataclass(frozen=True)
class Servers:
    api_url: str
    upstream_url: str
    log: Path
    api_pid: int

    def api_cpu_seconds(self) -> float:
        """CPU time the API process has used so far (user and system, all threads)."""
        fields = Path(f"/proc/{self.api_pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ServerOptions:
    data_dir: Path
    models_cache: Path | None  # None: the data dir's models/
    tokens: int  # pieces the upstream streams per answer
    interval_ms: float  # between two pieces
    log: Path | None  # keep both processes' logs here; None: a scratch file
    llm: str = "openai"  # "extractive": the API answers without the upstream


@contextmanager
def servers(options: ServerOptions, keys_needed: int) -> Iterator[tuple[Servers, list[str]]]:
    """The fake upstream and `paperchat serve` in processes of their own, and the API keys."""
    with ExitStack() as stack:
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
        env |= {
            "OPENAI_BASE_URL": upstream_url,
            "OPENAI_API_KEY": "bench",
            "PAPERCHAT_LLM": options.llm,
            "PAPERCHAT_LLM_MODEL": "bench",
            "PAPERCHAT_DATABASE_URL": database_url,
            "PAPERCHAT_SECRET_KEY": secrets.token_urlsafe(32),
            "PAPERCHAT_RATE_LIMIT": RATE_LIMIT,
        }
        if options.models_cache:
            env["PAPERCHAT_MODELS_CACHE"] = str(options.models_cache)
        port = unused_port()
        serve = [str(Path(sys.executable).with_name("paperchat")), "serve", "--host", "127.0.0.1"]
        serve += ["--port", str(port), "--workers", "1", "--data-dir", str(options.data_dir)]
        api = stack.enter_context(process(serve, env, log))
        api_url = f"http://127.0.0.1:{port}"
        wait_until_healthy(api_url, api, log_path)
        yield Servers(api_url, upstream_url, log_path, api.pid), keys


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
