"""Signing in: sessions with CSRF, API keys, sign-up, and the limits on guessing."""

from __future__ import annotations

import httpx
import pytest

from chat.service.access.ratelimit import build_rate_limiter
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    PASSWORD,
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(120)


def test_login_sets_an_httponly_samesite_cookie_and_returns_a_csrf_token(api: Api) -> None:
    email = api.new_user()

    with api.client() as client:
        response = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
        me = client.get("/api/me")

    assert response.status_code == 200
    body = response.json()
    assert body["user"]["email"] == email
    assert len(body["csrf_token"]) >= 32
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=lax" in cookie
    assert "secure" not in cookie
    assert me.json() == {"id": body["user"]["id"], "email": email, "is_admin": False}


def test_wrong_password_is_401_with_a_json_detail(api: Api) -> None:
    email = api.new_user()

    with api.client() as client:
        response = client.post("/api/auth/login", json={"email": email, "password": "wrong-one!"})

    assert response.status_code == 401
    assert response.json() == {"detail": "wrong email or password"}


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/api/me"), ("GET", "/api/keys"), ("GET", "/api/conversations"),
     ("POST", "/api/chat"), ("GET", "/api/search?q=x"), ("GET", "/api/papers/2007.01282")],
)  # fmt: skip
def test_api_routes_need_a_session_or_a_key(api: Api, method: str, path: str) -> None:
    with api.client() as client:
        response = client.request(method, path, json={"message": "hi"})

    assert response.status_code == 401
    assert "detail" in response.json()


def test_health_needs_no_sign_in(api: Api) -> None:
    with api.client() as client:
        response = client.get("/api/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["papers"] > 100
    assert body["chunks"] >= body["papers"]


def test_cookie_session_without_csrf_header_is_refused_on_unsafe_methods(api: Api) -> None:
    client = api.signed_in()
    token = client.headers.pop("X-CSRF-Token")

    with client:
        no_header = client.post("/api/keys", json={"name": "laptop"})
        wrong_header = client.post(
            "/api/keys", json={"name": "laptop"}, headers={"X-CSRF-Token": "not-it"}
        )
        reading = client.get("/api/keys")
        with_header = client.post(
            "/api/keys", json={"name": "laptop"}, headers={"X-CSRF-Token": token}
        )

    assert no_header.status_code == 403
    assert "X-CSRF-Token" in no_header.json()["detail"]
    assert wrong_header.status_code == 403
    assert reading.status_code == 200
    assert with_header.status_code == 201


def test_api_key_needs_no_csrf_token(api: Api) -> None:
    with api.key_client() as client:
        response = client.post("/api/keys", json={"name": "second"})

    assert response.status_code == 201
    assert response.json()["key"].startswith("pc_")


def test_key_is_shown_once_and_listed_without_its_secret(api: Api) -> None:
    with api.signed_in() as client:
        created = client.post("/api/keys", json={"name": "ci"}).json()
        listed = client.get("/api/keys").json()

    assert created["key"].startswith("pc_")
    assert [k["name"] for k in listed] == ["ci"]
    assert set(listed[0]) == {"id", "name", "created_at", "last_used_at"}
    assert created["key"] not in str(listed)


def test_revoked_key_fails_at_once(api: Api) -> None:
    with api.signed_in() as owner:
        created = owner.post("/api/keys", json={"name": "soon gone"}).json()
        key_client = api.client(Authorization=f"Bearer {created['key']}")
        before = key_client.get("/api/me")
        revoked = owner.delete(f"/api/keys/{created['id']}")
        after = key_client.get("/api/me")
        key_client.close()

    assert before.status_code == 200
    assert revoked.status_code == 204
    assert after.status_code == 401
    assert after.json() == {"detail": "invalid or revoked API key"}


def test_someone_elses_key_cannot_be_revoked(api: Api) -> None:
    with api.signed_in() as alice, api.signed_in() as bob:
        key_id = alice.post("/api/keys", json={"name": "mine"}).json()["id"]
        response = bob.delete(f"/api/keys/{key_id}")
        still_listed = [k["id"] for k in alice.get("/api/keys").json()]

    assert response.status_code == 404
    assert key_id in still_listed


def test_register_creates_an_account_once(api: Api) -> None:
    email = "new-person@example.org"

    with api.client() as client:
        first = client.post("/api/auth/register", json={"email": email, "password": PASSWORD})
        again = client.post("/api/auth/register", json={"email": email, "password": PASSWORD})
        weak = client.post("/api/auth/register", json={"email": "w@example.org", "password": "x"})

    assert first.status_code == 201
    assert first.json()["email"] == email
    assert again.status_code == 409
    assert weak.status_code == 422
    assert "8 characters" in weak.json()["detail"]


def test_register_is_403_when_signup_is_closed(api: Api) -> None:
    api.services.settings = api.services.settings.model_copy(update={"allow_signup": False})
    try:
        with api.client() as client:
            response = client.post(
                "/api/auth/register", json={"email": "c@example.org", "password": PASSWORD}
            )
    finally:
        api.services.settings = api.services.settings.model_copy(update={"allow_signup": True})

    assert response.status_code == 403


def test_logout_ends_the_session(api: Api) -> None:
    with api.signed_in() as client:
        response = client.post("/api/auth/logout")
        me = client.get("/api/me")

    assert response.status_code == 204
    assert me.status_code == 401


def test_repeated_login_attempts_are_limited(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    email = api.new_user()
    monkeypatch.setattr(api.services, "login_limiter", build_rate_limiter("3/minute", None))
    with api.client() as client:
        codes = [
            client.post("/api/auth/login", json={"email": email, "password": "guess-0000"})
            for _ in range(4)
        ]

    assert [r.status_code for r in codes] == [401, 401, 401, 429]
    assert int(codes[-1].headers["Retry-After"]) >= 1


def test_sign_ins_over_many_emails_from_one_address_are_limited(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.services, "login_address_limiter", build_rate_limiter("5/minute", None))
    with api.client() as client:
        codes = [
            client.post(
                "/api/auth/login",
                json={"email": f"spray-{n}@example.org", "password": "Winter2026!"},
            ).status_code
            for n in range(8)
        ]

    assert codes == [401] * 5 + [429] * 3


def test_a_forged_forwarded_for_does_not_reset_the_sign_in_limit(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    email = api.new_user()
    monkeypatch.setattr(api.services, "login_limiter", build_rate_limiter("3/minute", None))
    with api.client() as client:
        codes = [
            client.post(
                "/api/auth/login",
                json={"email": email, "password": "guess-0000"},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(5)
        ]

    assert codes == [401, 401, 401, 429, 429]


def _stolen_copy(api: Api, client: httpx.Client) -> httpx.Client:
    """Another client with the same cookie and CSRF token: a stolen session."""
    thief = api.client(**{"X-CSRF-Token": client.headers["X-CSRF-Token"]})
    thief.cookies.update(client.cookies)
    return thief


def test_after_logout_the_old_cookie_no_longer_signs_in(api: Api) -> None:
    with api.signed_in() as client, _stolen_copy(api, client) as thief:
        before = thief.get("/api/me").status_code
        client.post("/api/auth/logout").raise_for_status()
        after = thief.get("/api/me")
        dock = thief.get("/dock/session").json()

    assert before == 200
    assert after.status_code == 401
    assert dock["user"] is None


def test_sign_out_everywhere_ends_every_session_of_the_user(api: Api) -> None:
    email = api.new_user()
    with api.signed_in(email) as laptop, api.signed_in(email) as phone:
        other = api.signed_in()
        response = laptop.post("/api/auth/logout-all")
        codes = [c.get("/api/me").status_code for c in (laptop, phone, other)]
        other.close()

    assert response.status_code == 204
    assert codes == [401, 401, 200], "another user's session is left alone"


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(api: Api) -> None:
    email = api.new_user()
    with api.signed_in(email) as laptop, api.signed_in(email) as phone:
        changed = laptop.post(
            "/api/auth/password",
            json={"current_password": PASSWORD, "new_password": "a brand new passphrase"},
        )
        laptop.headers["X-CSRF-Token"] = changed.json()["csrf_token"]
        codes = [c.get("/api/me").status_code for c in (laptop, phone)]
    with api.client() as client:
        old = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
        new = client.post(
            "/api/auth/login", json={"email": email, "password": "a brand new passphrase"}
        )

    assert changed.status_code == 200
    assert changed.json()["user"]["email"] == email
    assert codes == [200, 401]
    assert (old.status_code, new.status_code) == (401, 200)


def test_a_wrong_current_password_changes_nothing(api: Api) -> None:
    email = api.new_user()
    with api.signed_in(email) as client:
        refused = client.post(
            "/api/auth/password",
            json={"current_password": "not it at all", "new_password": "a brand new passphrase"},
        )
        short = client.post(
            "/api/auth/password", json={"current_password": PASSWORD, "new_password": "short"}
        )
        still = client.get("/api/me").status_code
    with api.client() as client:
        login = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})

    assert refused.status_code == 403
    assert refused.json()["detail"] == "the current password is wrong"
    assert short.status_code == 422
    assert still == 200
    assert login.status_code == 200
