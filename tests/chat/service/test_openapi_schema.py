"""The OpenAPI document describes what every route really accepts and answers.

Schemathesis reads `/openapi.json` from the running server, sends it
generated requests (valid and invalid ones) signed in with an API key, and
checks every answer against the document: no server errors, only
documented status codes, bodies and content types as described, invalid
input refused.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from tests.support.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(900)
CONFIG = Path(__file__).with_name("schemathesis.toml")


def test_every_route_answers_as_its_schema_says(api: Api, tmp_path: Path) -> None:
    key = api.key_for(api.new_user())
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG),
        "run", f"{api.base_url}/openapi.json",
        "--header", f"Authorization: Bearer {key}",
        "--max-examples", "25",
        "--workers", "1",
        "--seed", "1",
        "--no-color",
    ]  # fmt: skip

    run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=840)

    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]


def test_a_wrong_method_lists_every_method_the_path_allows(api: Api) -> None:
    with api.key_client() as client:
        response = client.put("/api/conversations/some-id")

    assert response.status_code == 405
    assert response.headers["Allow"] == "DELETE, GET"
    assert response.json() == {"detail": "method not allowed"}


def test_the_document_states_the_configured_question_length(
    api_settings: Settings, tmp_path: Path
) -> None:
    settings = api_settings.model_copy(
        update={"max_question_chars": 123, "database_url": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    )
    prepare_service(settings)

    document = TestClient(create_app(settings)).get("/openapi.json").json()

    message = document["components"]["schemas"]["ChatRequest"]["properties"]["message"]
    assert message["maxLength"] == 123
    assert "HTTPValidationError" not in document["components"]["schemas"]
