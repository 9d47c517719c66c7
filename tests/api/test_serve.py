"""`paperchat serve`: the command starts uvicorn and the API answers, with one or more workers."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from chat.components import Index
from tests.net import unused_port

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_answers_health_until_stopped(
    small_index: Index, tmp_path: Path, workers: int
) -> None:
    port = unused_port()
    env = os.environ | {
        "PAPERCHAT_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}",
        "PAPERCHAT_MODELS_CACHE": str(small_index.settings.models_dir),
        "PAPERCHAT_SECRET_KEY": secrets.token_urlsafe(32),
        "PAPERCHAT_LLM": "extractive",
    }
    command = [
        sys.executable, "-m", "chat.cli", "serve", "--host", "127.0.0.1",
        "--port", str(port), "--workers", str(workers),
        "--data-dir", str(small_index.settings.data_dir),
    ]  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    health = None
    with (tmp_path / "serve.log").open("wb") as log:
        process = subprocess.Popen(command, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 120
            while health is None and time.monotonic() < deadline and process.poll() is None:
                try:
                    health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
                except httpx.TransportError:
                    time.sleep(0.2)
        finally:
            process.terminate()
            code = process.wait(timeout=60)

    assert health is not None, (tmp_path / "serve.log").read_text()
    assert health.json()["status"] == "ok"
    assert health.json()["papers"] > 100
    # After a graceful shutdown uvicorn re-raises the SIGTERM it caught.
    assert code in (0, -15)
