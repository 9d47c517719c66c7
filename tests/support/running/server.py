"""The API under test: a real uvicorn on 127.0.0.1 in a thread, the fake upstream behind it.

Test modules import the fixtures they use from here. One app serves the
whole session (the small index, a SQLite database of its own, signup open);
`Api` makes users, signs them in and reads event streams.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from chat.service.access.accounts import create_api_key, create_user, get_user
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.service.routes.deps import Services
from chat.settings import Settings
from chat.wiring import Wiring
from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.running.net import serving, unused_port

PASSWORD = "correct horse battery"


@dataclass(frozen=True)
class SseEvent:
    name: str
    data: dict[str, Any]


def read_events(response: httpx.Response) -> list[SseEvent]:
    """Every named event of a finished SSE response (comments such as pings skipped)."""
    return list(iter_events(response))


def iter_events(response: httpx.Response) -> Iterator[SseEvent]:
    """The named events of an SSE response as they arrive (comments such as pings skipped)."""
    name, data = "message", list[str]()
    for line in response.iter_lines():
        if line.startswith(":"):
            continue
        if not line:
            if data:
                yield SseEvent(name, json.loads("\n".join(data)))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data.append(line.removeprefix("data:").strip())


@dataclass
class Api:
    base_url: str
    app: FastAPI
    fake: FakeOpenAI

    @property
    def services(self) -> Services:
        services: Services = self.app.state.services
        return services

    def client(self, **headers: str) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=20, headers=headers)

    def new_user(self) -> str:
        email = f"user-{secrets.token_hex(4)}@example.org"
        with self.services.sessions() as session:
            create_user(session, email, PASSWORD)
        return email

    def signed_in(self, email: str | None = None) -> httpx.Client:
        """A client with a session cookie that sends the CSRF token on every request."""
        with self.client() as login:
            response = login.post(
                "/api/auth/login", json={"email": email or self.new_user(), "password": PASSWORD}
            )
            response.raise_for_status()
            client = self.client(**{"X-CSRF-Token": response.json()["csrf_token"]})
            client.cookies.update(login.cookies)
        return client

    def key_for(self, email: str) -> str:
        with self.services.sessions() as session:
            return create_api_key(session, get_user(session, email), "test").plaintext

    def key_client(self, email: str | None = None) -> httpx.Client:
        key = self.key_for(email or self.new_user())
        return self.client(Authorization=f"Bearer {key}")


@pytest.fixture(scope="session", name="fake_llm")
def fake_llm_fixture() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def served_settings(index: Wiring, fake: FakeOpenAI, database: Path, **more: Any) -> Settings:
    """`index`'s settings for a server answering with `fake`, on a SQLite file, signup open."""
    return index.settings.model_copy(
        update={
            "database_url": f"sqlite:///{database}",
            "llm": "openai",
            "llm_model": "fake-chat",
            "openai_base_url": fake.base_url,
            "openai_api_key": SecretStr("test-upstream-key"),
            "secret_key": SecretStr(secrets.token_urlsafe(32)),
            "allow_signup": True,
            "rate_limit": "1000/minute",
            # Every test signs in and searches from 127.0.0.1: tests that check these
            # limits swap in tighter limiters of their own.
            "login_address_rate_limit": "100000/minute",
            "login_email_rate_limit": "100000/minute",
            "search_rate_limit": "100000/minute",
            **more,
        }
    )


def serve_index(index: Wiring, fake: FakeOpenAI, database: Path, **more: Any) -> Iterator[Api]:
    """`index` served on a real uvicorn on 127.0.0.1 with `served_settings` (and `more`),
    its service database prepared in `database`: for a fixture to yield from."""
    settings = served_settings(index, fake, database, **more)
    prepare_service(settings)
    app = create_app(settings)
    with serving(app, unused_port()) as base_url:
        yield Api(base_url, app, fake)


@pytest.fixture(scope="session", name="api_settings")
def api_settings_fixture(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Settings:
    return served_settings(small_index, fake_llm, tmp_path_factory.mktemp("api-db") / "db.sqlite")


@pytest.fixture(scope="session", name="api")
def api_fixture(api_settings: Settings, fake_llm: FakeOpenAI) -> Iterator[Api]:
    """The app on a real uvicorn on 127.0.0.1, for the whole session."""
    prepare_service(api_settings)
    app = create_app(api_settings)
    with serving(app, unused_port()) as base_url:
        yield Api(base_url, app, fake_llm)


@pytest.fixture(autouse=True, name="fresh_upstream")
def fresh_upstream_fixture(fake_llm: FakeOpenAI) -> Iterator[None]:
    """Each test starts with the fake's plain answer, nothing queued and its disconnect
    flag down."""
    fake_llm.reset()
    yield
    fake_llm.default_script = ChatScript()


def wait_for(condition: Any, timeout: float = 5.0) -> bool:
    """Poll `condition()` until it is true or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


__all__ = [
    "PASSWORD",
    "Api",
    "SseEvent",
    "api_fixture",
    "api_settings_fixture",
    "fake_llm_fixture",
    "fresh_upstream_fixture",
    "read_events",
    "served_settings",
    "wait_for",
]
