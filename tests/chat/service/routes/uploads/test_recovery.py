"""Uploads outlive a killed server: `paperchat serve` killed while it reads them (the
`reading-upload` failpoint, a SIGKILL) leaves them `processing`; the server started again
reads again the one whose PDF its uploads folder holds, and fails, saying why, the one
whose PDF is gone; on PostgreSQL, another node sharing the uploads folder takes over."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.servers import create_keys
from chat.service.uploads.reading import GONE, READING_FAILPOINT
from ingest.jobs.failpoints import FAILPOINT_ENV
from tests.chat.service.routes.uploads.conftest import ACL_PDF, ARXIV_PDF
from tests.conftest import postgres_schema
from tests.support.data import PDFS, ROOT
from tests.support.running.cli import command, environment
from tests.support.running.net import unused_port
from tests.support.running.processes import stop_process

pytestmark = pytest.mark.timeout(900)

STARTED_WITHIN_S = 180.0
SETTLED_WITHIN_S = 300.0


class Server:
    """`paperchat serve` (one process) on a data dir of the test's and `database` (by
    default a SQLite file of the test's)."""

    def __init__(self, root: Path, models: Path, database: str = "", **env: str) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.database = database or f"sqlite:///{root / 'service.sqlite'}"
        self.env = environment(
            root / "data",
            models,
            PAPERCHAT_LLM="extractive",
            PAPERCHAT_DATABASE_URL=self.database,
            PAPERCHAT_STREAM_HEARTBEAT_S="0.5",
            **env,
        )
        self.uploads = root / "data" / "uploads"
        self.log = root / "serve.log"
        self.url = ""

    @contextmanager
    def running(self, ttl_s: float, failpoint: str = "") -> Iterator[subprocess.Popen[bytes]]:
        port = unused_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {**self.env, "PAPERCHAT_STREAM_TTL_S": str(ttl_s), FAILPOINT_ENV: failpoint}
        with self.log.open("ab") as out:
            process = subprocess.Popen(
                command("serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"),
                env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        try:
            self._wait_started(process)
            yield process
        finally:
            stop_process(process)

    def _wait_started(self, process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + STARTED_WITHIN_S
        while process.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"the server did not start:\n{self.log.read_text()[-3000:]}")

    def client(self, key: str) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {key}"}, timeout=60
        )


def _send_and_die(server: Server, key: str, name: str) -> None:
    """Upload `name` to a server that kills itself when it starts reading it."""
    with (
        server.running(ttl_s=600, failpoint=READING_FAILPOINT) as process,
        server.client(key) as client,
    ):
        files = {"file": (name, (PDFS / name).read_bytes(), "application/pdf")}
        with suppress(httpx.HTTPError):  # the process may die before it answers
            client.post("/api/uploads", files=files)
        code = process.wait(timeout=STARTED_WITHIN_S)
    assert code == -9, server.log.read_text()[-3000:]


def _settled(client: httpx.Client) -> dict[str, dict[str, Any]]:
    """The user's uploads by file name, once none is `processing`."""
    deadline = time.monotonic() + SETTLED_WITHIN_S
    while True:
        uploads = client.get("/api/uploads").json()["uploads"]
        done = all(u["status"] != "processing" for u in uploads)
        if done or time.monotonic() > deadline:
            return {u["filename"]: u for u in uploads}
        time.sleep(0.3)


def _statuses(database: Path) -> dict[str, str]:
    with closing(sqlite3.connect(database)) as connection:
        return dict(connection.execute("SELECT filename, status FROM uploads").fetchall())


def test_a_killed_servers_uploads_are_read_again_or_failed_when_their_pdf_is_gone(
    tmp_path: Path, models_cache: Path
) -> None:
    server = Server(tmp_path, models_cache)
    (key,) = create_keys(server.database, 1)
    _send_and_die(server, key, ACL_PDF)
    _send_and_die(server, key, ARXIV_PDF)
    [user_folder] = server.uploads.iterdir()
    held = {
        name: [f for f in user_folder.iterdir() if (f / "document.pdf").read_bytes() == data]
        for name, data in ((n, (PDFS / n).read_bytes()) for n in (ACL_PDF, ARXIV_PDF))
    }
    shutil.rmtree(held[ARXIV_PDF][0])

    before = _statuses(tmp_path / "service.sqlite")

    with server.running(ttl_s=2), server.client(key) as client:
        after = _settled(client)
        asked = client.post(
            "/api/chat",
            json={"message": "What is the paper about?", "upload_ids": [after[ACL_PDF]["id"]]},
        )

    assert before == {ACL_PDF: "processing", ARXIV_PDF: "processing"}
    assert after[ACL_PDF]["status"] == "ready", after
    assert after[ACL_PDF]["chunks"] > 0
    assert after[ARXIV_PDF]["status"] == "failed", after
    assert after[ARXIV_PDF]["reason"] == GONE
    assert asked.status_code == 200
    assert f"[doc:{after[ACL_PDF]['doc_id']}]" in asked.text


def test_another_node_takes_over_the_upload_of_a_killed_node(
    tmp_path: Path, models_cache: Path
) -> None:
    shared = {
        "PAPERCHAT_UPLOADS_DIR": str(tmp_path / "uploads"),
        "PAPERCHAT_SECRET_KEY": "one key both nodes share",
    }
    with postgres_schema() as database:
        killed = Server(tmp_path / "killed", models_cache, database, **shared)
        alive = Server(tmp_path / "alive", models_cache, database, **shared)
        (key,) = create_keys(database, 1)

        with alive.running(ttl_s=2), alive.client(key) as client:
            _send_and_die(killed, key, ACL_PDF)
            after = _settled(client)
            asked = client.post(
                "/api/chat",
                json={"message": "What is the paper about?", "upload_ids": [after[ACL_PDF]["id"]]},
            )

    assert after[ACL_PDF]["status"] == "ready", after
    assert after[ACL_PDF]["chunks"] > 0
    assert f"[doc:{after[ACL_PDF]['doc_id']}]" in asked.text
