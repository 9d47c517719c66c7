"""The serving benchmarks' servers: the API's CPU counts every process under it, the Chroma
server's apart, and Redis is the configured one or one of the benchmark's own."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.servers import Servers, process_tree, redis, redis_answers, stopped_by_sigterm
from tests.support.running.processes import stop_process

# A parent that starts a child which spends CPU, then both wait to be ended.
BUSY_CHILD = """
import subprocess, sys, time
subprocess.Popen([sys.argv[1], "run", "--path", "x"])
time.sleep(60)
"""
BUSY_LOOP = """#!{python}
import time
end = time.process_time() + 0.3
while time.process_time() < end:
    pass
time.sleep(60)
"""


@pytest.fixture
def serve_like(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process whose child is a `chroma run` (a script of that name) that spent CPU."""
    chroma = tmp_path / "chroma"
    chroma.write_text(BUSY_LOOP.format(python=sys.executable))
    chroma.chmod(0o755)
    parent = subprocess.Popen([sys.executable, "-c", BUSY_CHILD, str(chroma)])
    try:
        deadline = time.monotonic() + 30
        while len(process_tree(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        yield parent
    finally:
        for pid in process_tree(parent.pid)[1:]:
            subprocess.run(["kill", str(pid)], check=False)
        stop_process(parent)


def test_the_api_cpu_sums_every_process_under_the_serve_one_and_tells_the_chroma_servers_apart(
    serve_like: subprocess.Popen[bytes],
) -> None:
    running = Servers("http://api", "http://upstream", Path("log"), serve_like.pid, 2, "none")
    [child] = process_tree(serve_like.pid)[1:]

    deadline = time.monotonic() + 30
    while running.api_cpu().chroma_s < 0.2 and time.monotonic() < deadline:
        time.sleep(0.05)
    cpu = running.api_cpu()

    assert child != serve_like.pid
    assert cpu.chroma_s >= 0.2
    assert cpu.total_s > cpu.chroma_s  # the parent's own CPU too
    assert running.api_cpu_seconds() < cpu.chroma_s  # the serve process alone: not the child's


def test_a_configured_redis_is_used_and_none_is_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERCHAT_REDIS_URL", "redis://127.0.0.1:1/0")

    with redis(tmp_path, io.BytesIO()) as (url, source):
        assert (url, source) == ("redis://127.0.0.1:1/0", "PAPERCHAT_REDIS_URL")


def test_without_one_configured_a_redis_of_its_own_answers_until_the_block_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PAPERCHAT_REDIS_URL", raising=False)

    with (tmp_path / "redis.log").open("wb") as log, redis(tmp_path, log) as (url, source):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert source == "own redis-server"
        assert redis_answers(port)

    assert not redis_answers(port)


def test_a_sigterm_ends_the_servers_block_as_an_exit_and_the_handler_before_comes_back() -> None:
    before = signal.getsignal(signal.SIGTERM)

    with pytest.raises(SystemExit) as ended:
        _terminated_inside()

    assert ended.value.code == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before


def _terminated_inside() -> None:
    with stopped_by_sigterm():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends


def test_the_workers_are_the_spawned_processes_under_the_serve_one_or_else_itself() -> None:
    spawning = "import subprocess, sys, time\n"
    spawning += "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', "
    spawning += "'spawn_main'])\ntime.sleep(60)"
    alone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    parent = subprocess.Popen([sys.executable, "-c", spawning])
    try:
        deadline = time.monotonic() + 30
        while len(process_tree(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        [worker] = process_tree(parent.pid)[1:]

        def servers(pid: int) -> Servers:
            return Servers("http://api", "http://upstream", Path("log"), pid, 1, "none")

        assert servers(parent.pid).worker_pids() == [worker]
        assert servers(alone.pid).worker_pids() == [alone.pid]
    finally:
        for pid in process_tree(parent.pid)[1:]:
            subprocess.run(["kill", str(pid)], check=False)
        stop_process(parent)
        stop_process(alone)
