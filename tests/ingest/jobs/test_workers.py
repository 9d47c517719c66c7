"""Worker processes on one queue, as on several machines: one is killed between the Chroma
upsert and the catalog commit, one stops there (SIGSTOP) past its lease and wakes up after
its job was done by another. Every job ends done, the late commit is refused, and the
catalog lists exactly the chunks Chroma holds."""

from __future__ import annotations

import gzip
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ingest.index.catalog import Catalog
from ingest.index.vectors.store import open_chroma
from ingest.jobs.queue import counts, open_queue
from tests.conftest import postgres_schema
from tests.support.data import ABSTRACTS, PDFS, ROOT
from tests.support.running.cli import command, environment, run
from tests.support.running.processes import LATE_COMMIT_REFUSED

pytestmark = pytest.mark.timeout(900)
LEASE_S = "5"
BATCHES = 4
PDF = "1502.03167v3.pdf"  # the smallest of the shared PDFs


def _wait_for(what: str, check: Callable[[], bool], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.5)


def _stopped(process: subprocess.Popen[bytes]) -> bool:
    """Whether the process is stopped by a signal (state T in /proc)."""
    stat = Path(f"/proc/{process.pid}/stat").read_text()
    return stat.rpartition(")")[2].split()[0] == "T"


class Workers:
    """`paperchat worker` processes on one queue, each with its own data dir and log."""

    def __init__(self, root: Path, base: dict[str, str]) -> None:
        self.root = root
        self.base = base
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *args: str, **extra: str) -> subprocess.Popen[bytes]:
        env = {**self.base, "PAPERCHAT_DATA_DIR": str(self.root / name), **extra}
        argv = command("worker", "--lease", LEASE_S, *args)
        with (self.root / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log, stderr=log)
        self.processes[name] = process
        return process

    def log(self, name: str) -> str:
        return (self.root / f"{name}.log").read_text(errors="replace")

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def queue(tmp_path: Path, models_cache: Path, empty_chroma_server: str) -> Iterator[dict[str, str]]:
    """One PostgreSQL schema (queue and catalog), one Chroma server and one PDF store for all
    workers."""
    with postgres_schema() as url:
        yield environment(
            tmp_path / "cli",
            models_cache,
            PAPERCHAT_DATABASE_URL=url,
            PAPERCHAT_CHROMA_URL=empty_chroma_server,
            PAPERCHAT_PDF_STORE=str(tmp_path / "pdf-store"),  # the folder all nodes share
        )


def _abstracts(path: Path, lines: int) -> Path:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as source:
        path.write_text("".join(next(source) for _ in range(lines)), encoding="utf-8")
    return path


def _chroma_ids(url: str) -> list[str]:
    client = open_chroma(Path(), url)
    return [i for c in client.list_collections() for i in c.get(include=[])["ids"]]


def test_killed_and_paused_workers_lose_nothing(tmp_path: Path, queue: dict[str, str]) -> None:
    database = queue["PAPERCHAT_DATABASE_URL"]
    metadata = _abstracts(tmp_path / "abstracts.jsonl", 10 * BATCHES)
    queued = run(queue, "jobs", "enqueue", "abstracts", str(metadata), "--batch", "10", "--json")
    assert queued.code == 0, queued.stderr
    assert queued.json == {"jobs": BATCHES}
    assert run(queue, "jobs", "enqueue", "pdfs", str(PDFS / PDF)).code == 0
    jobs = BATCHES + 1
    app = open_queue(database)
    workers = Workers(tmp_path, queue)
    try:
        killed = workers.start("killed", PAPERCHAT_FAILPOINT="after-chroma-upsert")
        paused = workers.start("paused", PAPERCHAT_FAILPOINT="after-chroma-upsert:pause")
        _wait_for("the failpoints", lambda: killed.poll() is not None and _stopped(paused))
        workers.start("healthy", "--concurrency", "2")

        with app.open():
            _wait_for("every job done", lambda: counts(app)["succeeded"] == jobs)
        os.kill(paused.pid, signal.SIGCONT)
        _wait_for("the late commit", lambda: "lease was lost" in workers.log("paused"))
    finally:
        workers.stop_all()

    assert killed.returncode == -signal.SIGKILL
    with app.open():
        assert counts(app) == {**dict.fromkeys(counts(app), 0), "succeeded": jobs}
    paused_log = workers.log("paused")
    assert re.search(LATE_COMMIT_REFUSED, paused_log), paused_log[-6000:]
    healthy = workers.log("healthy")
    recovered = re.findall(r"run again: \d+ of its units checked, (\d+) Chroma ids", healthy)
    assert len([n for n in recovered if int(n) > 0]) >= 2  # both jobs' half-written units
    assert workers.processes["healthy"].returncode == 0  # SIGTERM: a clean stop
    assert "worker: stopped" in healthy
    catalog = Catalog(database)
    in_catalog = [str(r[0]) for r in catalog.db.execute("SELECT id FROM chunks")]
    pending, papers = catalog.pending_units(), catalog.db.execute("SELECT count(*) FROM papers")
    catalog.close()
    in_chroma = _chroma_ids(queue["PAPERCHAT_CHROMA_URL"])
    assert len(in_chroma) == len(set(in_chroma))
    assert sorted(in_catalog) == sorted(in_chroma)
    assert pending == []
    assert papers.fetchone()[0] == 10 * BATCHES + 1
    assert any(i.startswith(f"{PDF.removesuffix('v3.pdf')}#") for i in in_chroma)  # its text
    with app.open():
        rows = app.connector.get_sync_connector().execute_query_all(
            "SELECT args FROM procrastinate_jobs WHERE task_name = 'ingest_pdf'"
        )
    assert [set(r["args"]) for r in rows] == [{"sha256", "name"}]  # read from the PDF store
