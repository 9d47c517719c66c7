"""Rate limits shared by several API workers through Redis."""

from __future__ import annotations

import uuid

import pytest

from chat.app import create_app
from chat.settings import Settings
from tests.api.server import (  # noqa: F401 - pytest fixtures, used by name
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(60)


def test_two_workers_with_one_redis_share_the_chat_limit(api_settings: Settings) -> None:
    settings = api_settings.model_copy(
        update={"redis_url": "redis://127.0.0.1:6379/0", "rate_limit": "2/minute"}
    )
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
    first, second = create_app(settings), create_app(settings)
    user = f"test-{uuid.uuid4().hex}"

    decisions = [
        first.state.services.chat_limiter.hit(user),
        second.state.services.chat_limiter.hit(user),
    ]

    assert [d.allowed for d in decisions] == [True, True]
