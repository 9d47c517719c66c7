"""`/docs` from the app's own files; requests from pages on origins the server does not allow."""

from __future__ import annotations

import logging
import re

import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(300)


def test_docs_load_swagger_ui_from_the_app_itself(api: Api) -> None:
    with api.client() as client:
        page = client.get("/docs")
        assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
        fetched = {url: client.get(url) for url in assets}
        unknown = client.get("/docs/assets/secrets.txt")
        redoc = client.get("/redoc")

    assert page.status_code == 200
    assert "SwaggerUIBundle" in page.text
    assert "/openapi.json" in page.text
    assert "://" not in page.text
    assert sorted(assets) == [
        "/docs/assets/favicon.png", "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui.css",
    ]  # fmt: skip
    assert all(r.status_code == 200 for r in fetched.values())
    assert (
        fetched["/docs/assets/swagger-ui-bundle.js"]
        .headers["content-type"]
        .startswith("text/javascript")
    )
    assert b"SwaggerUIBundle" in fetched["/docs/assets/swagger-ui-bundle.js"].content
    assert unknown.status_code == 404
    assert redoc.status_code == 404


def test_a_request_from_an_unlisted_origin_is_logged_once_with_the_setting(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="paperchat.origins")
    foreign = "http://blog.example.org"

    with api.client() as client:
        for _ in range(3):
            client.get("/dock/session", headers={"Origin": foreign})
        client.get("/dock/session", headers={"Origin": api.base_url})
        client.get("/dock/session")

    logged = [r.getMessage() for r in caplog.records if r.name == "paperchat.origins"]
    assert len(logged) == 1
    assert foreign in logged[0]
    assert "PAPERCHAT_CORS_ORIGINS" in logged[0]
