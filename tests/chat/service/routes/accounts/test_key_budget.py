"""API keys have a rate-limit budget of their own (`PAPERCHAT_API_RATE_LIMIT`, per key);
browser sessions keep theirs (`PAPERCHAT_RATE_LIMIT`, per user)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from chat.service.access.ratelimit import build_rate_limiter
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

FID = "How does Fusion-in-Decoder combine the retrieved passages?"
COMPLETION: dict[str, Any] = {"model": "paperchat", "messages": [{"role": "user", "content": FID}]}


def _with_key(api: Api, key: str) -> httpx.Client:
    return api.client(Authorization=f"Bearer {key}")


def _statuses(client: httpx.Client, path: str, times: int) -> list[int]:
    body = COMPLETION if path.startswith("/v1") else {"message": FID}
    return [client.post(path, json=body).status_code for _ in range(times)]


@pytest.fixture
def tight(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three requests a minute for each key, two for each user's sessions."""
    monkeypatch.setattr(api.services, "api_limiter", build_rate_limiter("3/minute", None))
    monkeypatch.setattr(api.services, "chat_limiter", build_rate_limiter("2/minute", None))


@pytest.mark.usefixtures("tight")
def test_a_key_flood_meets_its_budget_while_the_users_session_goes_on(api: Api) -> None:
    email = api.new_user()
    key, other_key = api.key_for(email), api.key_for(email)

    with _with_key(api, key) as client:
        flood = _statuses(client, "/v1/chat/completions", 3) + _statuses(client, "/api/chat", 2)
        refused = client.post("/v1/chat/completions", json=COMPLETION)
    with api.signed_in(email) as browser:
        session = browser.post("/api/chat", json={"message": FID})
    with _with_key(api, other_key) as client:
        other = client.post("/v1/chat/completions", json=COMPLETION)

    assert flood == [200, 200, 200, 429, 429]
    assert refused.json()["error"]["code"] == "rate_limit_exceeded"
    assert int(refused.headers["Retry-After"]) >= 1
    assert session.status_code == 200
    assert read_events(session)[-1].name == "done"
    assert other.status_code == 200, "each key has a budget of its own"


@pytest.mark.usefixtures("tight")
def test_a_session_flood_meets_its_budget_while_the_users_key_goes_on(api: Api) -> None:
    email = api.new_user()
    key = api.key_for(email)

    with api.signed_in(email) as browser:
        flood = _statuses(browser, "/api/chat", 3)
        refused = browser.post("/api/chat", json={"message": FID})
    with _with_key(api, key) as client:
        by_key = _statuses(client, "/api/chat", 1) + _statuses(client, "/v1/chat/completions", 1)

    assert flood == [200, 200, 429]
    assert "too many chat requests" in refused.json()["detail"]
    assert by_key == [200, 200]
