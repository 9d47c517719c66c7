"""Limits the settings set, and rate limits shared by several API workers through Redis."""

from __future__ import annotations

import secrets
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from chat.service.access.accounts import create_api_key, create_user
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings, SettingsError
from chat.wiring import Wiring
from tests.fakes.openai import FakeOpenAI
from tests.support.running.net import serving, unused_port
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_settings_fixture,
    fake_llm_fixture,
    served_settings,
)

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.timeout(180)


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

    assert chat.status_code == 422
    assert chat.json()["detail"] == "the question is longer than 40 characters"
    assert compat.status_code == 400
    assert compat.json()["error"]["message"] == "the question is longer than 40 characters"
    assert compat.json()["error"]["param"] == "messages"


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


def _health_p95(client: httpx.Client, count: int = 20) -> float:
    seconds = []
    for _ in range(count):
        started = time.perf_counter()
        client.get("/api/health").raise_for_status()
        seconds.append(time.perf_counter() - started)
    return statistics.quantiles(seconds, n=20)[-1]


def _first_token_s(client: httpx.Client) -> float:
    started = time.perf_counter()
    with client.stream("POST", "/api/chat", json={"message": "What is attention?"}) as response:
        for line in response.iter_lines():
            if line.startswith("event: delta"):
                return time.perf_counter() - started
    raise AssertionError("the answer had no delta")


def _quiet_and_flooded(api: Api, measure: Callable[[], float]) -> tuple[float, float, str]:
    """`measure()` on a quiet server, then during a sign-in flood (the median of 3 each),
    and the flood's status codes. The flood: 100 connections, at most 400 attempts or 8 s."""
    quiet = statistics.median(measure() for _ in range(3))
    command = [sys.executable, "-m", "tests.support.running.flood", api.base_url, "100", "400", "8"]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) as flood:
        time.sleep(1.0)  # the flood under way
        flooded = statistics.median(measure() for _ in range(3))
        output, _ = flood.communicate(timeout=60)
    return quiet, flooded, output


def test_a_sign_in_flood_leaves_health_and_chat_responsive(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    # Per-address limits out of the way: the cap on password checks is under test.
    settings = served_settings(
        small_index, fake_llm, tmp_path / "db.sqlite", login_address_rate_limit="100000/minute"
    )
    prepare_service(settings)
    app = create_app(settings)
    with serving(app, unused_port()) as base_url:
        api = Api(base_url, app, fake_llm)
        with api.key_client() as client:
            health = _quiet_and_flooded(api, lambda: _health_p95(client))
            chat = _quiet_and_flooded(api, lambda: _first_token_s(client))

    assert health[1] < 10 * health[0], f"health p95 (quiet, flooded, codes): {health}"
    assert chat[1] < 5 * chat[0], f"first token (quiet, flooded, codes): {chat}"
    assert "503" in health[2], "sign-ins beyond the cap are turned away, not queued for ever"


def _random_address() -> str:
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


def _workers(api_settings: Settings, redis_url: str, **limits: str) -> list[FastAPI]:
    """With Redis two workers that share the counts; without, one worker counting alone."""
    settings = api_settings.model_copy(update={"redis_url": redis_url, **limits})
    prepare_service(settings)
    return [create_app(settings), create_app(settings)] if redis_url else [create_app(settings)]


@pytest.mark.parametrize("redis_url", ["", "redis://127.0.0.1:6379/0"], ids=["process", "redis"])
def test_sign_ins_over_many_emails_are_limited_per_address(
    api_settings: Settings, redis_url: str
) -> None:
    apps = _workers(api_settings, redis_url, login_address_rate_limit="4/minute")
    address = _random_address()
    clients = [TestClient(app, client=(address, 50000)) for app in apps]

    codes = [
        clients[n % len(clients)]
        .post("/api/auth/login", json={"email": f"spray-{n}@example.org", "password": "x"})
        .status_code
        for n in range(6)
    ]
    other = TestClient(apps[0], client=(_random_address(), 50000)).post(
        "/api/auth/login", json={"email": "spray-0@example.org", "password": "x"}
    )

    assert codes == [401] * 4 + [429] * 2
    assert other.status_code == 401, "another address has its own count"


@pytest.mark.parametrize("redis_url", ["", "redis://127.0.0.1:6379/0"], ids=["process", "redis"])
def test_guesses_at_one_email_from_many_addresses_are_limited_per_email(
    api_settings: Settings, redis_url: str
) -> None:
    apps = _workers(api_settings, redis_url, login_email_rate_limit="3/hour")
    target = f"target-{secrets.token_hex(4)}@example.org"

    def attempt(n: int, email: str) -> int:
        client = TestClient(apps[n % len(apps)], client=(_random_address(), 50000))
        body = {"email": email, "password": f"guess-{n}"}
        return client.post("/api/auth/login", json=body).status_code

    codes = [attempt(n, target) for n in range(5)]
    other = attempt(5, f"other-{secrets.token_hex(4)}@example.org")

    assert codes == [401] * 3 + [429] * 2, "each guess came from an address of its own"
    assert other == 401, "another email has its own count"


@pytest.mark.parametrize("redis_url", ["", "redis://127.0.0.1:6379/0"], ids=["process", "redis"])
def test_guesses_from_50_addresses_are_stopped_and_the_owners_browser_still_signs_in(
    api_settings: Settings, redis_url: str
) -> None:
    apps = _workers(api_settings, redis_url, login_email_rate_limit="20/hour")
    email, password = f"owner-{secrets.token_hex(4)}@example.org", "the owner's passphrase"
    with apps[0].state.services.sessions() as session:
        create_user(session, email, password)
    owners_laptop = TestClient(apps[-1], client=(_random_address(), 50000))
    # Its first sign-in, from a browser the account never saw, counts against the email.
    signed_in = owners_laptop.post("/api/auth/login", json={"email": email, "password": password})
    owners_laptop.post("/api/auth/logout", headers={"X-CSRF-Token": signed_in.json()["csrf_token"]})

    def guess(n: int) -> int:
        attacker = TestClient(apps[n % len(apps)], client=(_random_address(), 50000))
        body = {"email": email, "password": f"guess-{n}"}
        return attacker.post("/api/auth/login", json=body).status_code

    codes = [guess(n) for n in range(50)]
    owner = owners_laptop.post("/api/auth/login", json={"email": email, "password": password})
    new_browser = TestClient(apps[0], client=(_random_address(), 50000)).post(
        "/api/auth/login", json={"email": email, "password": password}
    )

    assert codes == [401] * 19 + [429] * 31, "each guess came from an address of its own"
    assert owner.status_code == 200, "a browser that signed in before is not locked out"
    assert new_browser.status_code == 429, "a browser the account never saw is counted"


def test_behind_a_trusted_proxy_each_forwarded_client_counts_alone(
    api_settings: Settings,
) -> None:
    proxy = _random_address()
    settings = api_settings.model_copy(
        update={"trusted_proxies": f"{proxy}, 192.0.2.0/24", "login_address_rate_limit": "1/minute"}
    )
    prepare_service(settings)
    client = TestClient(create_app(settings), client=(proxy, 50000))

    def attempt(forwarded_for: str) -> int:
        body = {"email": "nobody@example.org", "password": "x"}
        headers = {"X-Forwarded-For": forwarded_for}
        return client.post("/api/auth/login", json=body, headers=headers).status_code

    codes = [
        attempt("203.0.113.1"),
        attempt("203.0.113.2"),
        attempt("203.0.113.1"),
        # Forged first entry; the trusted 192.0.2.9 added the real client, 203.0.113.2.
        attempt("203.0.113.77, 203.0.113.2, 192.0.2.9"),
    ]

    assert codes == [401, 401, 429, 429]


def test_trusted_proxies_that_are_not_addresses_are_a_settings_error(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, trusted_proxies="10.0.0.1, gateway")

    with pytest.raises(SettingsError) as caught:
        create_app(settings)

    assert str(caught.value) == (
        "invalid settings: PAPERCHAT_TRUSTED_PROXIES: not an address or network: 'gateway'"
    )


def test_an_unreachable_redis_is_a_503_not_a_crash(api_settings: Settings) -> None:
    settings = api_settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{unused_port()}/0"})
    prepare_service(settings)
    client = TestClient(create_app(settings), client=(_random_address(), 50000))

    response = client.post("/api/auth/login", json={"email": "ada@example.org", "password": "x"})

    assert response.status_code == 503
    assert response.json()["detail"] == "the rate limit store is unavailable; retry in a moment"
    assert response.headers["Retry-After"] == "5"
