"""A worker asks the (fake) arXiv API for queued ids, and harvests the followed categories
on its schedule: both reach the shared catalog."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat.library.follows import Target
from chat.service.access.accounts import create_user
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.follows import add_follow
from chat.service.storage.migrations import upgrade_database
from ingest.index.catalog import Catalog
from ingest.jobs.queue import open_queue
from tests.conftest import postgres_schema
from tests.fakes.arxiv import FakeArxiv, FakePaper
from tests.support.data import ROOT
from tests.support.running.cli import command, environment, run

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

PAPERS = [
    FakePaper("2401.00001", title="Parsing with graphs", categories=("cs.CL",)),
    FakePaper("2401.00002", title="Dark matter halos", categories=("astro-ph.CO",)),
    FakePaper("2401.00003", title="Tokenisers compared", categories=("cs.CL", "cs.LG")),
    FakePaper("2401.00004", title="Knots and links", categories=("math.GT",)),
]


@pytest.fixture
def database() -> Iterator[str]:
    """A PostgreSQL schema with the service's tables, where a user follows cs.CL."""
    with postgres_schema() as url:
        upgrade_database(url)
        engine = create_database_engine(url)
        with session_factory(engine)() as session:
            user = create_user(session, "reader@example.org", "a long password")
            add_follow(session, user.id, Target("category", "cs.CL"), 0)
        engine.dispose()
        yield url


def _papers(url: str) -> set[str]:
    catalog = Catalog(url)
    try:
        return {str(r[0]) for r in catalog.db.execute("SELECT id FROM papers")}
    finally:
        catalog.close()


def test_worker_ingests_queued_ids_and_harvests_on_schedule(
    tmp_path: Path, models_cache: Path, database: str
) -> None:
    with FakeArxiv(PAPERS) as arxiv:
        env = environment(
            tmp_path / "data",
            models_cache,
            PAPERCHAT_DATABASE_URL=database,
            PAPERCHAT_ARXIV_API_URL=arxiv.api_url,
            PAPERCHAT_ARXIV_PDF_URL=arxiv.pdf_base_url,
            PAPERCHAT_ARXIV_INTERVAL_S="0.1",
        )
        queued = run(env, "jobs", "enqueue", "arxiv", "--id", "2401.00002", "--id", "2401.00004")
        assert queued.code == 0, queued.stderr
        log = tmp_path / "worker.log"
        with log.open("wb") as out:
            worker = subprocess.Popen(
                command("worker", "--harvest", "*/2 * * * * *"),
                env=env,
                cwd=ROOT,
                stdout=out,
                stderr=out,
            )
        try:
            deadline = time.monotonic() + 300
            while len(_papers(database)) < len(PAPERS) and time.monotonic() < deadline:
                time.sleep(1)
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=120)
        asked = {r.params.get("id_list") or r.params.get("search_query") for r in arxiv.requests}

    assert _papers(database) == {p.id for p in PAPERS}, log.read_text()
    assert worker.returncode == 0
    assert {"2401.00002,2401.00004", "cat:cs.CL"} <= asked
    app = open_queue(database)
    with app.open():
        rows = app.connector.get_sync_connector().execute_query_all(
            "SELECT task_name, status::text AS status FROM procrastinate_jobs"
        )
    assert {(r["task_name"], r["status"]) for r in rows} >= {
        ("ingest_arxiv", "succeeded"),
        ("harvest", "succeeded"),
    }
