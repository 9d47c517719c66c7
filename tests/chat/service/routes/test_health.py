"""`/api/health` reports the latest PDF run of `paperchat ingest pdfs`, run as a user runs it:
nothing before any, its counts with the PDFs it could not read, and a reader killed midway;
`/api/ingest/pdfs` lists the PDFs not read, with their reasons, to signed-in users."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from chat.settings import Settings
from chat.wiring import Wiring
from ingest.runs import RunState, run_state
from tests.fakes.openai import FakeOpenAI
from tests.support.data import PDFS, ROOT
from tests.support.running.cli import command, environment, run
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    serve_index,
)

pytestmark = [pytest.mark.timeout(400), pytest.mark.slow]
# The smallest of the shared PDFs, and six more for a run long enough to be killed midway.
READABLE = "1502.03167v3.pdf"
SEVERAL = (READABLE, "1201.3077v1.pdf", "2007.01282v2.pdf", "2004.04906v3.pdf",
           "2002.08909v1.pdf", "1706.03762v7.pdf")  # fmt: skip


def _served(
    data: Path, models: Path, fake: FakeOpenAI, database: Path
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`/api/health` and, signed in with a key, `/api/ingest/pdfs` of the app over `data`."""
    index = Wiring(Settings(data_dir=data, models_cache=models))
    try:
        with contextmanager(serve_index)(index, fake, database) as api:
            with api.client() as client:
                health = client.get("/api/health").json()
            with api.key_client() as client:
                pdf_run = client.get("/api/ingest/pdfs").json()
    finally:
        index.close()
    return health, pdf_run


def _folder(tmp_path: Path, names: tuple[str, ...]) -> Path:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in names:
        shutil.copy(PDFS / name, folder / name)
    return folder


def test_before_any_pdf_run_health_counts_nothing(api: Api) -> None:
    with api.client() as client:
        health = client.get("/api/health").json()
        anonymous = client.get("/api/ingest/pdfs")
    with api.key_client() as client:
        pdf_run = client.get("/api/ingest/pdfs").json()

    assert health["pdfs"] == {"total": 0, "read": 0, "failed": 0, "error": None, "running": False}
    assert anonymous.status_code == 401
    assert pdf_run["not_read"] == []
    assert pdf_run["started_at"] is None


def test_a_corrupt_pdf_is_counted_as_not_read_with_its_reason(
    tmp_path: Path, models_cache: Path, fake_llm: FakeOpenAI
) -> None:
    folder = _folder(tmp_path, (READABLE,))
    corrupt = folder / "2101.00001v1.pdf"
    corrupt.write_bytes(b"%PDF-1.4\n" + b"\x00 not a page \xff" * 200 + b"\n%%EOF\n")
    data = tmp_path / "data"

    ingested = run(environment(data, models_cache), "ingest", "pdfs", str(folder), "--json")
    health, pdf_run = _served(data, models_cache, fake_llm, tmp_path / "db.sqlite")

    assert ingested.code == 1, ingested.stderr
    assert health["pdfs"] == {"total": 2, "read": 1, "failed": 1, "error": None, "running": False}
    assert health["papers"] == 1
    assert pdf_run["not_read"] == ingested.json["skipped"]
    assert [x["source"] for x in pdf_run["not_read"]] == [str(corrupt.resolve())]
    assert "corrupt PDF" in pdf_run["not_read"][0]["reason"]
    assert pdf_run["ended_at"] is not None


def _read_some(data: Path, reading: subprocess.Popen[bytes], timeout: float = 240) -> RunState:
    """The run's state once it has read a PDF (or the reader has ended, or time is up)."""
    deadline = time.monotonic() + timeout
    state = run_state(data, "pdfs")
    while time.monotonic() < deadline and reading.poll() is None and state.read < 1:
        time.sleep(0.01)
        state = run_state(data, "pdfs")
    return state


def test_a_reader_killed_midway_is_reported_as_stopped(
    tmp_path: Path, models_cache: Path, fake_llm: FakeOpenAI
) -> None:
    folder = _folder(tmp_path, SEVERAL)
    data = tmp_path / "data"
    reading = subprocess.Popen(
        command("ingest", "pdfs", str(folder), "--workers", "1"),
        env=environment(data, models_cache), cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        midway = _read_some(data, reading)
        os.killpg(reading.pid, signal.SIGKILL)  # the reader and its PDF parser with it
    finally:
        code = reading.wait(timeout=60)

    health, pdf_run = _served(data, models_cache, fake_llm, tmp_path / "db.sqlite")

    assert midway.running is True
    assert 1 <= midway.read < len(SEVERAL)
    assert code == -signal.SIGKILL
    pdfs = health["pdfs"]
    assert pdfs["running"] is False
    assert pdfs["total"] == len(SEVERAL)
    assert pdfs["read"] >= midway.read
    assert re.fullmatch(
        rf"the PDF reader \(pid {reading.pid}\) stopped after reading \d+ of {len(SEVERAL)}",
        pdfs["error"],
    ), pdfs
    assert pdf_run["error"] == pdfs["error"]
    assert pdf_run["ended_at"] is None
