"""One process holds an embedded vector store: another is refused with the holder's name,
reaches it through the server a `paperchat serve` runs on it, and takes it over once the
holder is gone, even killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import PIPE, Popen

import pytest

from ingest.index.filters import Filters
from ingest.index.vectors.owner import (
    VectorStoreBusy,
    claim,
    current_owner,
    held,
    lock_path,
    published_url,
)
from ingest.index.vectors.server import serving_directory
from ingest.index.vectors.store import ChunkStore, open_chroma
from tests.ingest.index.vectors.test_store import _chunks
from tests.support.running.processes import stop_process
from tests.support.worlds.vectors import unit_vectors

pytestmark = pytest.mark.timeout(180)
REPO = Path(__file__).resolve().parents[4]

# A child that opens the store in argv[1], writes three chunks and says how it went.
WRITER = """
import dataclasses, json, sys
from pathlib import Path
from ingest.index.vectors.owner import VectorStoreBusy
from ingest.index.vectors.store import ChunkStore, open_chroma
from tests.ingest.index.vectors.test_store import _chunks
from tests.support.worlds.vectors import unit_vectors
try:
    store = ChunkStore(open_chroma(Path(sys.argv[1])), "minilm")
except VectorStoreBusy as e:
    print(json.dumps({"refused": str(e)}))
    sys.exit(0)
chunks = [dataclasses.replace(c, id=c.id.replace("@abc", "@new")) for c in _chunks(3)]
store.upsert(chunks, unit_vectors(3, seed=2))
print(json.dumps({"wrote": [c.id for c in chunks]}))
"""

# A child that holds the store in argv[1] (or serves it, with argv[2] "serve") until killed.
HOLDER = """
import sys, time
from pathlib import Path
from ingest.index.vectors.owner import claim
from ingest.index.vectors.server import serving_directory
path = Path(sys.argv[1])
if sys.argv[2] == "serve":
    with serving_directory(path, path.with_name("chroma.log")) as server:
        print(server.url, flush=True)
        time.sleep(600)
claim(path, "holder")
print("held", flush=True)
time.sleep(600)
"""


def _run_writer(path: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(path)], cwd=REPO, capture_output=True, check=True
    )
    answer: dict[str, object] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return answer


@contextmanager
def _holder(path: Path, mode: str, read: bool = True) -> Iterator[tuple[Popen[bytes], str]]:
    """The HOLDER child and the first line it said (if `read`); stopped after the block."""
    process = Popen([sys.executable, "-c", HOLDER, str(path), mode], cwd=REPO, stdout=PIPE)
    assert process.stdout is not None
    try:
        yield process, process.stdout.readline().decode().strip() if read else ""
    finally:
        stop_process(process)
        process.stdout.close()


def test_a_second_process_is_refused_with_the_holders_pid_and_command(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    ChunkStore(open_chroma(path), "minilm").upsert(_chunks(2), unit_vectors(2, seed=1))

    answer = _run_writer(path)

    refusal = str(answer.get("refused"))
    assert f"pid {os.getpid()}" in refusal
    assert "would damage it" in refusal
    assert ChunkStore(open_chroma(path), "minilm").count() == 2


def test_commands_beside_a_serve_reach_the_store_through_its_server(tmp_path: Path) -> None:
    path = tmp_path / "chroma"

    with serving_directory(path, tmp_path / "chroma.log") as server:
        url = server.url
        ours = ChunkStore(open_chroma(path), "minilm")
        ours.upsert(_chunks(2), unit_vectors(2, seed=1))
        answer = _run_writer(path)
        found = {i for i, _ in ours.search(unit_vectors(3, seed=2)[0], 10, Filters())}
        owner = current_owner(path)

    assert owner is not None
    assert owner.url == url
    assert owner.command == "paperchat serve"
    assert {str(i) for i in answer["wrote"]} <= found  # type: ignore[attr-defined]
    assert len(found) == 5  # the server's search sees the other process's writes at once
    assert held(path) is None  # let go when the serve ends


def test_a_killed_holder_leaves_the_store_free(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    with _holder(path, "hold") as (process, said):
        refused = pytest.raises(VectorStoreBusy, match=f"pid {process.pid} .`holder`")
        with refused:
            claim(path)

        process.send_signal(signal.SIGKILL)
        process.wait()

    mine = claim(path)
    assert said == "held"
    assert current_owner(path) == mine.owner
    mine.release()
    assert current_owner(path) is None


def test_the_server_of_a_killed_serve_stops_with_it(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    with _holder(path, "serve") as (process, url):
        served_pid = _pid_listening(url)
        assert published_url(path, wait_s=0) == url

        process.send_signal(signal.SIGKILL)
        process.wait()
        gone = _wait_until_gone(served_pid)

    assert gone, "the Chroma server outlived the serve that ran it"
    assert current_owner(path) is None
    mine = claim(path)
    mine.release()


def test_a_command_waits_for_a_starting_serve_to_publish_its_server(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    with _holder(path, "serve", read=False) as (process, _):
        while (owner := current_owner(path)) is None or not owner.pid:
            assert process.poll() is None
            time.sleep(0.01)
        found = published_url(path)
        assert process.stdout is not None
        said = process.stdout.readline().decode().strip()

    assert owner.url == ""  # claimed, its server not yet started
    assert found == said


def _pid_listening(url: str) -> int:
    """The pid of the `chroma run` child serving `url` (from /proc)."""
    port = url.rsplit(":", 1)[1]
    for status in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = status.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"run" in words and port.encode() in words and any(b"chroma" in w for w in words):
            return int(status.parent.name)
    raise AssertionError(f"no chroma process serves {url}")


def _wait_until_gone(pid: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.1)
    return False


# Takes the lock of argv[1], leaves its file empty for a moment, then names a serve in it.
SLOW_WRITER = """
import fcntl, json, os, sys, time
descriptor = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(descriptor, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(1.0)
os.write(descriptor, json.dumps({"pid": os.getpid(), "command": "paperchat serve",
                                 "started": "now", "url": "http://127.0.0.1:9"}).encode())
time.sleep(600)
"""


def test_a_holder_yet_to_write_its_name_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    command = [sys.executable, "-c", SLOW_WRITER, str(lock_path(path))]
    with Popen(command, stdout=PIPE, text=True) as writer:
        try:
            assert writer.stdout is not None
            said = writer.stdout.readline().strip()
            found = published_url(path, wait_s=30)
        finally:
            writer.kill()
            writer.wait()
            writer.stdout.close()  # type: ignore[union-attr]

    assert said == "locked"
    assert found == "http://127.0.0.1:9"
