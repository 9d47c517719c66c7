"""A damaged vector index costs nobody their account: `paperchat index check` finds it,
`paperchat serve` refuses it with advice instead of crashing on a request, and
`paperchat index rebuild-vectors` makes it again from the catalog, keeping every account,
key and conversation (they live in the service database, not in the vector store)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from chat.service.access.accounts import create_api_key, create_user
from chat.service.storage.conversations import open_turn
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.tables import ApiKey, Conversation, User
from tests.support.data import ABSTRACTS, ROOT, SHARED
from tests.support.running.cli import Result, command, environment, run
from tests.support.running.net import unused_port
from tests.support.running.processes import stop_process

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow, pytest.mark.integration]
CACHE = SHARED / "embeddings" / "minilm-l6-v2-chunks.npz"
# Enough abstracts for Chroma to write its HNSW graph to files (over 1,000 vectors).
ABSTRACT_COUNT = "750"


@pytest.fixture(scope="module")
def repair_library(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> Path:
    """A data dir with 750 abstracts, an account, its API key and a conversation."""
    data = tmp_path_factory.mktemp("library") / "data"
    env = environment(data, models_cache)
    made = run(env, "ingest", "abstracts", str(ABSTRACTS), "--limit", ABSTRACT_COUNT)
    assert made.code == 0, made.stderr
    database = f"sqlite:///{data / 'paperchat.sqlite'}"
    upgrade_database(database)
    engine = create_database_engine(database)
    with session_factory(engine)() as session:
        user = create_user(session, "reader@example.org", "a long password")
        (data / "key").write_text(create_api_key(session, user, "test").plaintext)
        open_turn(session, user.id, None, "What is retrieval-augmented generation?")
        session.commit()
    engine.dispose()
    return data


@pytest.fixture
def copy(repair_library: Path, tmp_path: Path, models_cache: Path) -> tuple[Path, dict[str, str]]:
    data = tmp_path / "data"
    shutil.copytree(repair_library, data)
    return data, environment(data, models_cache)


def _people(data: Path) -> tuple[int, int, int]:
    engine = create_database_engine(f"sqlite:///{data / 'paperchat.sqlite'}")
    with session_factory(engine)() as session:
        counts = tuple(
            int(session.scalar(select(func.count()).select_from(table)) or 0)
            for table in (User, ApiKey, Conversation)
        )
    engine.dispose()
    return counts  # type: ignore[return-value]


def _graph_file(data: Path, name: str) -> Path:
    (found,) = (data / "chroma").glob(f"*/{name}")
    return found


def _crash_on_open(data: Path) -> None:
    """Overwrite every third byte of the HNSW vectors: Chroma segfaults on loading them."""
    path = _graph_file(data, "data_level0.bin")
    damaged = bytearray(path.read_bytes())
    damaged[::3] = b"\xff" * len(damaged[::3])
    path.write_bytes(damaged)


def _serve_briefly(env: dict[str, str], key: str = "") -> tuple[Result, int | None]:
    """`paperchat serve` until it answers health (the status, then stopped) or ends."""
    port = unused_port()
    process = subprocess.Popen(
        command("serve", "--port", str(port)), env=env, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    status = None
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                headers = {"Authorization": f"Bearer {key}"} if key else {}
                answer = httpx.get(f"http://127.0.0.1:{port}/api/health", headers=headers)
                status = answer.status_code
                break
            except httpx.TransportError:
                time.sleep(0.2)
    finally:
        stop_process(process)  # type: ignore[arg-type]
    stdout, stderr = process.communicate()
    return Result(process.returncode, stdout, stderr), status


def test_a_whole_index_checks_clean(copy: tuple[Path, dict[str, str]]) -> None:
    _, env = copy

    checked = run(env, "index", "check", "--json")

    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.json["ok"] is True
    assert checked.json["vectors"] == checked.json["chunks"] > 1000


def test_a_store_that_crashes_its_reader_is_found_refused_and_rebuilt_keeping_people(
    copy: tuple[Path, dict[str, str]],
) -> None:
    data, env = copy
    people = _people(data)
    _crash_on_open(data)

    checked = run(env, "index", "check", "--json")
    served, _ = _serve_briefly(env)
    rebuilt = run(env, "index", "rebuild-vectors", "--cache", str(CACHE))
    after = run(env, "index", "check", "--json")
    again, status = _serve_briefly(env, (data / "key").read_text())

    assert checked.code == 1
    assert checked.json["damaged"] is True
    assert "crashed its process (killed by SIGSEGV)" in checked.stdout
    assert served.code == 2, served.stderr
    assert "the vector index is damaged" in served.stderr
    assert "rebuild-vectors" in served.stderr
    assert "Traceback" not in served.stderr
    assert rebuilt.code == 0, rebuilt.stderr
    assert "from the cache" in rebuilt.stdout
    assert after.code == 0, after.stdout
    assert after.json["vectors"] == after.json["chunks"]
    assert status == 200, again.stderr  # the same API key, after the rebuild
    assert _people(data) == people
    assert [p.name.startswith("chroma.damaged-") for p in data.iterdir()].count(True) == 1


def test_a_graph_file_grown_sparse_is_refused_before_anything_opens_it(
    copy: tuple[Path, dict[str, str]],
) -> None:
    data, env = copy
    with _graph_file(data, "link_lists.bin").open("r+b") as grown:
        grown.truncate(4 << 40)  # 4 TiB claimed, nothing written: what two writers left

    checked = run(env, "index", "check")
    served, status = _serve_briefly(env)

    assert checked.code == 1
    assert "link_lists.bin claims 4,398,046,511,104 bytes" in checked.stdout
    assert status is None
    assert served.code == 2
    assert "two processes wrote the graph at once" in served.stderr


def test_an_interrupted_rebuild_is_refused_by_serve_and_finished_by_the_next(
    copy: tuple[Path, dict[str, str]],
) -> None:
    _, env = copy
    rebuilding = subprocess.Popen(
        command("index", "rebuild-vectors"), env=env, cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert rebuilding.stderr is not None
    first = ""
    while not first.startswith("rebuild-vectors:") and rebuilding.poll() is None:
        first = rebuilding.stderr.readline()  # once the first batch is written
    rebuilding.send_signal(signal.SIGKILL)
    rebuilding.wait()
    rebuilding.stderr.close()

    served, _ = _serve_briefly(env)
    finished = run(env, "index", "rebuild-vectors", "--cache", str(CACHE))
    checked = run(env, "index", "check", "--json")

    assert first.startswith("rebuild-vectors: 5")
    assert served.code == 2
    assert "was interrupted" in served.stderr
    assert finished.code == 0, finished.stderr
    assert "kept from the interrupted run" in finished.stdout
    assert checked.code == 0, checked.stdout
