"""A node whose PostgreSQL goes away answers 503 with Retry-After, never a 500: the
sign-in check, a search over the shared catalog and the health check alike."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from tests.cluster.services import SECRET, postgres
from tests.support.running.net import serving, unused_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_node_whose_database_goes_away_answers_503(tmp_path: Path, models_cache: Path) -> None:
    with postgres() as server:
        settings = Settings(
            data_dir=tmp_path / "node",
            models_cache=models_cache,
            database_url=server.url,
            secret_key=SECRET,
            allow_signup=True,
        )
        prepare_service(settings)
        app = create_app(settings)
        with serving(app, unused_port()) as url, httpx.Client(base_url=url, timeout=30) as client:
            account = {"email": "ada@example.org", "password": "a long enough password"}
            assert client.post("/api/auth/register", json=account).status_code == 201
            login = client.post("/api/auth/login", json=account)
            assert login.status_code == 200
            client.headers["X-CSRF-Token"] = login.json()["csrf_token"]
            assert client.get("/api/search", params={"q": "attention"}).status_code == 200

            server.stop()

            answers = [
                client.get("/api/me"),
                client.get("/api/search", params={"q": "attention"}),
                client.get("/api/health"),
            ]
        app.state.services.engine.dispose()

    assert [a.status_code for a in answers] == [503, 503, 503]
    assert all("unavailable" in a.json()["detail"] or "unreachable" in a.json()["detail"]
               for a in answers)  # fmt: skip
    assert answers[0].headers["Retry-After"] == "5"
