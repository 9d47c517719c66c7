"""Limits the settings set, and rate limits shared by several API workers through Redis."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from chat.service.accounts import create_api_key, create_user
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings, SettingsError
from tests.api.server import (  # noqa: F401 - pytest fixtures, used by name
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(60)


def test_an_unreadable_rate_limit_is_a_settings_error_naming_it(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url="", login_rate_limit="lots")

    with pytest.raises(SettingsError) as caught:
        create_app(settings)

    assert str(caught.value).startswith(
        "invalid settings: PAPERCHAT_LOGIN_RATE_LIMIT: cannot parse rate limit 'lots'"
    )


def _client_with_key(settings: Settings) -> TestClient:
    prepare_service(settings)
    app = create_app(settings)
    with app.state.services.sessions() as session:
        user = create_user(session, f"{uuid.uuid4().hex}@example.org", "a long password")
        key = create_api_key(session, user, "limits").plaintext
    return TestClient(app, headers={"Authorization": f"Bearer {key}"})


def test_question_length_comes_from_the_settings(api_settings: Settings, tmp_path: Path) -> None:
    settings = api_settings.model_copy(
        update={"max_question_chars": 40, "database_url": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    )
    client = _client_with_key(settings)

    chat = client.post("/api/chat", json={"message": "x" * 41})
    compat = client.post(
        "/v1/chat/completions",
        json={"model": "paperchat", "messages": [{"role": "user", "content": "y" * 41}]},
    )

    assert chat.status_code == compat.status_code == 422
    assert chat.json()["detail"] == "the question is longer than 40 characters"
    assert compat.json()["detail"] == "the question is longer than 40 characters"


def test_body_size_comes_from_the_settings(api_settings: Settings, tmp_path: Path) -> None:
    settings = api_settings.model_copy(
        update={
            "max_body_bytes": 2048,
            "max_question_chars": 1000,
            "database_url": f"sqlite:///{tmp_path / 'db.sqlite'}",
        }
    )
    client = _client_with_key(settings)

    small = client.post("/api/chat", json={"message": "z" * 1500})
    large = client.post("/api/chat", json={"message": "z" * 3000})

    assert small.status_code == 422, "under the body limit, the question length decides"
    assert large.status_code == 413
    assert large.json()["detail"] == "the request body is larger than 2048 bytes"


def test_two_workers_with_one_redis_share_the_chat_limit(api_settings: Settings) -> None:
    settings = api_settings.model_copy(
        update={"redis_url": "redis://127.0.0.1:6379/0", "rate_limit": "2/minute"}
    )
    prepare_service(settings)
    first, second = create_app(settings), create_app(settings)
    user = f"test-{uuid.uuid4().hex}"

    decisions = [
        first.state.services.chat_limiter.hit(user),
        second.state.services.chat_limiter.hit(user),
        first.state.services.chat_limiter.hit(user),
    ]

    assert [d.allowed for d in decisions] == [True, True, False]
    assert decisions[2].retry_after_s >= 1


def test_without_redis_each_worker_counts_alone(api_settings: Settings) -> None:
    settings = api_settings.model_copy(update={"redis_url": "", "rate_limit": "1/minute"})
    prepare_service(settings)
    first, second = create_app(settings), create_app(settings)
    user = f"test-{uuid.uuid4().hex}"

    decisions = [
        first.state.services.chat_limiter.hit(user),
        second.state.services.chat_limiter.hit(user),
    ]

    assert [d.allowed for d in decisions] == [True, True]
