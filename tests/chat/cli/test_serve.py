"""`paperchat serve`: the command starts uvicorn and the API answers, with one or more workers,
and a shutdown ends the open answer streams with an `error` event."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from chat.cli.serve import default_workers
from chat.service.access.accounts import create_api_key, create_user
from chat.service.storage.conversations import get_conversation
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import current_revision, head_revision, upgrade_database
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.vectors.owner import held
from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.running.net import unused_port
from tests.support.running.server import fake_llm_fixture  # noqa: F401 - a pytest fixture, used by name
from tests.support.running.sockets import readable

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def serving(
    index: Wiring, tmp_path: Path, env: dict[str, str], workers: int = 1
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`paperchat serve` over `index` in a child process, until the block ends: (process, URL).
    An index this process holds is served from a copy: no two processes open one."""
    port = unused_port()
    data_dir = index.settings.data_dir
    if held(index.settings.chroma_path) is not None:
        data_dir = tmp_path / "served-data"
        if not data_dir.exists():
            shutil.copytree(index.settings.data_dir, data_dir)
    env = os.environ | {
        "PAPERCHAT_MODELS_CACHE": str(index.settings.models_dir),
        "PAPERCHAT_SECRET_KEY": secrets.token_urlsafe(32),
        "PAPERCHAT_LLM": "extractive",
        **env,
    }
    command = [
        sys.executable, "-m", "chat.cli", "serve", "--host", "127.0.0.1",
        "--port", str(port), "--workers", str(workers),
        "--data-dir", str(data_dir),
    ]  # fmt: skip
    with (tmp_path / "serve.log").open("wb") as log:
        process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield process, f"http://127.0.0.1:{port}"
        finally:
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=60)


def _health_status(url: str) -> int | str:
    """The health route's status, or the error that kept it from answering (so that a
    failure shows the server's log rather than the client's traceback)."""
    try:
        return httpx.get(f"{url}/api/health", timeout=5).status_code
    except httpx.TransportError as e:
        return f"{type(e).__name__}: {e}"


def wait_until_healthy(url: str, process: subprocess.Popen[bytes]) -> httpx.Response | None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            return httpx.get(f"{url}/api/health", timeout=2)
        except httpx.TransportError:
            time.sleep(0.2)
    return None


def test_serve_takes_a_worker_per_core_only_when_redis_shares_the_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2}, raising=False)

    alone = default_workers(Settings(data_dir=tmp_path, redis_url=""))
    shared = default_workers(Settings(data_dir=tmp_path, redis_url="redis://127.0.0.1:6379/0"))

    assert (alone, shared) == (1, 3)


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_answers_health_until_stopped(
    small_index: Wiring, tmp_path: Path, workers: int
) -> None:
    env = {"PAPERCHAT_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}"}

    with serving(small_index, tmp_path, env, workers) as (process, url):
        health = wait_until_healthy(url, process)
        process.terminate()
        code = process.wait(timeout=60)

    assert health is not None, (tmp_path / "serve.log").read_text()
    assert health.json()["status"] == "ok"
    assert health.json()["papers"] > 100
    # After a graceful shutdown uvicorn re-raises the SIGTERM it caught.
    assert code in (0, -15)


def test_serve_prepares_a_fresh_data_dir_once_before_its_workers_start(
    small_index: Wiring, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    index = Wiring(small_index.settings.model_copy(update={"data_dir": fresh}))
    # No key in the environment and the default database: serve makes both, in the data dir.
    env = {"PAPERCHAT_SECRET_KEY": "", "PAPERCHAT_DATABASE_URL": ""}

    with serving(index, tmp_path, env, workers=2) as (process, url):
        health = wait_until_healthy(url, process)
        log = tmp_path / "serve.log"
        started = wait_for_lines(log, "Application startup complete", 2)
        answers = [_health_status(url) for _ in range(6)]
        process.terminate()
        process.wait(timeout=60)

    text = log.read_text()
    assert health is not None, text
    assert started, text
    assert answers == [200] * 6, text
    # The workers' factories only check: a worker that found no key or an old schema fails.
    assert "Traceback" not in text
    assert [p.name for p in fresh.iterdir() if p.name.startswith("secret")] == ["secret_key"]
    engine = create_database_engine(f"sqlite:///{fresh / 'paperchat.sqlite'}")
    with engine.connect() as connection:
        assert current_revision(connection) == head_revision()
    engine.dispose()


def wait_for_lines(path: Path, text: str, count: int, timeout: float = 120) -> bool:
    """Whether `path` comes to hold `count` lines with `text` within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(text in line for line in path.read_text().splitlines()) >= count:
            return True
        time.sleep(0.2)
    return False


@dataclass(frozen=True)
class ModelServed:
    """How to start `paperchat serve` answering with the fake model, and who may ask it."""

    env: dict[str, str]
    key: str
    user_id: str


def _model_served(tmp_path: Path, fake_llm: FakeOpenAI, words: int) -> ModelServed:
    """A fresh database in `tmp_path` with one user and key, and the fake model set to
    stream `words` words 50 ms apart."""
    database = f"sqlite:///{tmp_path / 'serve.sqlite'}"
    upgrade_database(database)
    with session_factory(create_database_engine(database))() as session:
        user = create_user(session, "served@example.org", "a long password")
        key = create_api_key(session, user, "test").plaintext
        user_id = user.id
    fake_llm.default_script = ChatScript(pieces=("word ",) * words, delay=0.05)
    fake_llm.client_disconnected.clear()
    env = {
        "PAPERCHAT_DATABASE_URL": database,
        "PAPERCHAT_LLM": "openai",
        "PAPERCHAT_LLM_MODEL": "fake-chat",
        "OPENAI_BASE_URL": fake_llm.base_url,
        "OPENAI_API_KEY": "test-upstream-key",
    }
    return ModelServed(env, key, user_id)


def test_shutdown_ends_an_open_stream_with_an_error_event(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    served = _model_served(tmp_path, fake_llm, words=400)
    key, env = served.key, served.env
    events: list[tuple[str, dict[str, str]]] = []

    with serving(small_index, tmp_path, env) as (process, url):
        assert wait_until_healthy(url, process) is not None, (tmp_path / "serve.log").read_text()
        with httpx.stream(
            "POST",
            f"{url}/api/chat",
            json={"message": "What is dense passage retrieval?"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        ) as response:
            name = ""
            for line in response.iter_lines():
                if line.startswith("event:"):
                    name = line.removeprefix("event:").strip()
                elif line.startswith("data:"):
                    events.append((name, json.loads(line.removeprefix("data:"))))
                    if name == "delta" and len(events) == 3:
                        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=60)

    names = [name for name, _ in events]
    assert names[:3] == ["meta", "sources", "delta"]
    assert names[-1] == "error"
    assert events[-1][1]["code"] == "shutting_down"
    assert "done" not in names
    assert fake_llm.client_disconnected.wait(5), "the upstream call was not closed"
    assert code in (0, -15)
    sessions = session_factory(create_database_engine(env["PAPERCHAT_DATABASE_URL"]))
    with sessions() as session:
        conversation = get_conversation(session, served.user_id, events[0][1]["conversation_id"])
    saved = conversation.messages[-1]
    assert saved.status == "error"
    assert saved.content.startswith("word")


def _sign_in_attempts(url: str, forwarded_for: list[str]) -> list[int]:
    with httpx.Client(base_url=url, timeout=20) as client:
        return [
            client.post(
                "/api/auth/login",
                json={"email": "nobody@example.org", "password": "guess-0000"},
                headers={"X-Forwarded-For": address},
            ).status_code
            for address in forwarded_for
        ]


@pytest.mark.parametrize(
    ("trusted", "expected"), [("", [401, 401, 429]), ("127.0.0.1", [401, 401, 401])]
)
def test_serve_believes_forwarded_for_only_from_trusted_proxies(
    small_index: Wiring, tmp_path: Path, trusted: str, expected: list[int]
) -> None:
    env = {
        "PAPERCHAT_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}",
        "PAPERCHAT_LOGIN_RATE_LIMIT": "2/minute",
        "PAPERCHAT_TRUSTED_PROXIES": trusted,
    }
    forged = ["203.0.113.7", "203.0.113.8", "203.0.113.9"]

    with serving(small_index, tmp_path, env) as (process, url):
        health = wait_until_healthy(url, process)
        codes = _sign_in_attempts(url, forged)
        process.terminate()
        process.wait(timeout=60)

    log = (tmp_path / "serve.log").read_text()
    assert health is not None, log
    assert codes == expected
    assert ("203.0.113.7" in log) == bool(trusted), "the access log names the client it limits"


def test_shutdown_ends_an_open_v1_stream_with_an_error_chunk_then_done(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    served = _model_served(tmp_path, fake_llm, words=400)
    key, env = served.key, served.env
    data: list[str] = []
    body = {
        "model": "paperchat",
        "stream": True,
        "messages": [{"role": "user", "content": "What is dense passage retrieval?"}],
    }

    with serving(small_index, tmp_path, env) as (process, url):
        assert wait_until_healthy(url, process) is not None, (tmp_path / "serve.log").read_text()
        with httpx.stream(
            "POST",
            f"{url}/v1/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        ) as response:
            for line in response.iter_lines():
                if line.startswith("data:"):
                    data.append(line.removeprefix("data:").strip())
                    if len(data) == 3:
                        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=60)

    assert data[-1] == "[DONE]"
    error = json.loads(data[-2])["error"]
    assert error["code"] == "shutting_down"
    assert fake_llm.client_disconnected.wait(5), "the upstream call was not closed"
    assert code in (0, -15)


def _drip(connections: list[socket.socket], head: bytes, seconds: float) -> list[bytes]:
    """Send `head` then one byte a time on each connection (bounded in count and time) until
    the server closes it; what each received (b"" for a connection still open at the end)."""
    for connection in connections:
        connection.sendall(head)
    received = dict.fromkeys(connections, b"")
    open_ = set(connections)
    deadline = time.monotonic() + seconds
    while open_ and time.monotonic() < deadline:
        for connection in list(open_):
            try:
                data = connection.recv(4096) if readable(connection) else None
                if data is None:
                    connection.sendall(b"x")
            except OSError:
                data = b""
            if data is not None:
                received[connection] += data
                open_.discard(connection)
        time.sleep(0.1)
    return [received[c] if c not in open_ else b"still open" for c in connections]


def test_slow_requests_are_cut_off_but_slow_answers_are_not(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    # The answer streams for about 2 s, twice the time allowed to send a request.
    served = _model_served(tmp_path, fake_llm, words=40)
    key, env = served.key, {**served.env, "PAPERCHAT_REQUEST_TIMEOUT_S": "1"}
    slow_head = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    slow_body = (
        b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + key.encode() + b"\r\nContent-Length: 100000\r\n\r\n"
    )

    with serving(small_index, tmp_path, env) as (process, url):
        assert wait_until_healthy(url, process) is not None, (tmp_path / "serve.log").read_text()
        port = int(url.rsplit(":", 1)[1])
        connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(60)]
        try:
            heads = _drip(connections[:30], slow_head, seconds=20)
            bodies = _drip(connections[30:], slow_body, seconds=20)
        finally:
            for connection in connections:
                connection.close()
        with httpx.stream(
            "POST",
            f"{url}/api/chat",
            json={"message": "What is dense passage retrieval?"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        ) as response:
            names = [line for line in response.iter_lines() if line.startswith("event:")]
        health = httpx.get(f"{url}/api/health", timeout=5)

    assert all(r.startswith(b"HTTP/1.1 408 ") for r in heads), set(heads)
    assert all(r.startswith(b"HTTP/1.1 408 ") for r in bodies), set(bodies)
    assert names[-1] == "event: done"
    assert names.count("event: delta") > 1
    assert health.status_code == 200
