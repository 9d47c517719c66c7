"""`paperchat serve` answers while `paperchat ingest pdfs` reads PDFs beside it (as
`scripts/start` runs them): `/api/health` counts the PDFs read, and the papers join the
running server's index without a restart; once done, health keeps the run's counts."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from chat.service.access.accounts import create_api_key, create_user
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.wiring import Wiring
from ingest.runs import run_path
from tests.chat.cli.test_serve import serving, wait_until_healthy
from tests.support.data import PDFS, ROOT
from tests.support.running.cli import command, environment

pytestmark = [pytest.mark.timeout(400), pytest.mark.slow]
# Four PDFs the small index has not read.
READ_LATER = ("1706.03762v7.pdf", "2005.11401v4.pdf", "1810.04805v2.pdf", "1512.03385v1.pdf")
NO_RUN = {"total": 0, "read": 0, "failed": 0, "error": None, "running": False}


def _key(database: str) -> str:
    upgrade_database(database)
    with session_factory(create_database_engine(database))() as session:
        user = create_user(session, "reader@example.org", "a long password")
        return create_api_key(session, user, "test").plaintext


def _wait_for(path: Path, reading: subprocess.Popen[bytes], timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and reading.poll() is None:
        if path.exists():
            return True
        time.sleep(0.01)
    return False


def _events(url: str, key: str, question: str) -> list[str]:
    with httpx.stream(
        "POST",
        f"{url}/api/chat",
        json={"message": question},
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    ) as response:
        return [line for line in response.iter_lines() if line.startswith("event:")]


def test_questions_are_answered_and_health_counts_pdfs_while_they_are_read(
    small_index: Wiring, tmp_path: Path, models_cache: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(small_index.settings.data_dir, data)
    index = Wiring(small_index.settings.model_copy(update={"data_dir": data}))
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in READ_LATER:
        shutil.copy(PDFS / name, pdfs / name)
    database = f"sqlite:///{tmp_path / 'serve.sqlite'}"
    key = _key(database)
    reader_env = environment(data, models_cache)

    with serving(index, tmp_path, {"PAPERCHAT_DATABASE_URL": database}) as (process, url):
        before = wait_until_healthy(url, process)
        reading = subprocess.Popen(
            command("ingest", "pdfs", str(pdfs)), env=reader_env, cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            started = _wait_for(run_path(data, "pdfs"), reading)
            reading.send_signal(signal.SIGSTOP)  # held mid-run: the PDFs are pending
            during = httpx.get(f"{url}/api/health", timeout=10).json()
            answered = _events(url, key, "What is dense passage retrieval?")
        finally:
            reading.send_signal(signal.SIGCONT)
        code = reading.wait(timeout=300)
        after = httpx.get(f"{url}/api/health", timeout=10).json()
        paper = httpx.get(
            f"{url}/api/papers/1706.03762", headers={"Authorization": f"Bearer {key}"}, timeout=10
        )

    assert before is not None, (tmp_path / "serve.log").read_text()
    assert before.json()["pdfs"] == NO_RUN
    assert started
    assert during["pdfs"]["total"] == len(READ_LATER)
    assert during["pdfs"]["read"] < len(READ_LATER)
    assert during["pdfs"]["running"] is True
    assert answered[-1] == "event: done"
    assert "event: sources" in answered
    assert code == 0
    assert after["pdfs"] == {**NO_RUN, "total": len(READ_LATER), "read": len(READ_LATER)}
    assert after["chunks"] > before.json()["chunks"]
    assert paper.json()["has_fulltext"] is True
