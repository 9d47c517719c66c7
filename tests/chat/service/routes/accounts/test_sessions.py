"""A user's browser sessions and keys as they see them: which are signed in, from what and
when last used; ending one, the others or all of them."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    PASSWORD,
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(120)

LAPTOP = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/605.1"


def _browser(api: Api, email: str, user_agent: str) -> httpx.Client:
    """A client signed in as `email` with its own session, saying it is `user_agent`."""
    with api.client(**{"User-Agent": user_agent}) as login:
        response = login.post("/api/auth/login", json={"email": email, "password": PASSWORD})
        response.raise_for_status()
        client = api.client(
            **{"User-Agent": user_agent, "X-CSRF-Token": response.json()["csrf_token"]}
        )
        client.cookies.update(login.cookies)
    return client


def test_the_list_shows_each_session_with_the_current_one_marked(api: Api) -> None:
    email = api.new_user()
    with _browser(api, email, LAPTOP) as laptop, _browser(api, email, PHONE) as phone:
        seen_by_laptop = laptop.get("/api/auth/sessions").json()
        seen_by_phone = phone.get("/api/auth/sessions").json()

    by_agent = {s["user_agent"]: s for s in seen_by_laptop}
    assert sorted(by_agent) == sorted([LAPTOP, PHONE])
    assert (by_agent[LAPTOP]["current"], by_agent[PHONE]["current"]) == (True, False)
    assert {s["user_agent"]: s["current"] for s in seen_by_phone} == {LAPTOP: False, PHONE: True}
    for listed in seen_by_laptop:
        assert set(listed) == {"id", "created_at", "last_seen_at", "user_agent", "current"}
        assert datetime.fromisoformat(listed["last_seen_at"]) >= datetime.fromisoformat(
            listed["created_at"]
        )


def test_ending_the_other_session_signs_it_out_at_once(api: Api) -> None:
    email = api.new_user()
    with _browser(api, email, LAPTOP) as laptop, _browser(api, email, PHONE) as phone:
        listed = laptop.get("/api/auth/sessions").json()
        other = next(s["id"] for s in listed if not s["current"])
        ended = laptop.delete(f"/api/auth/sessions/{other}")
        phone_after = phone.get("/api/me").status_code
        laptop_after = laptop.get("/api/me").status_code
        again = laptop.delete(f"/api/auth/sessions/{other}").status_code

    assert ended.status_code == 204
    assert phone_after == 401
    assert laptop_after == 200
    assert again == 404


def test_another_users_session_cannot_be_ended(api: Api) -> None:
    with (
        _browser(api, api.new_user(), LAPTOP) as alice,
        _browser(api, api.new_user(), PHONE) as bob,
    ):
        alices = alice.get("/api/auth/sessions").json()[0]["id"]
        response = bob.delete(f"/api/auth/sessions/{alices}")
        alice_after = alice.get("/api/me").status_code

    assert response.status_code == 404
    assert alice_after == 200


def test_signing_out_the_others_keeps_this_session_and_the_keys(api: Api) -> None:
    email = api.new_user()
    with (
        _browser(api, email, LAPTOP) as laptop,
        _browser(api, email, PHONE) as phone,
        api.key_client(email) as script,
    ):
        response = laptop.post("/api/auth/logout-others")
        codes = [c.get("/api/me").status_code for c in (laptop, phone, script)]
        listed = laptop.get("/api/auth/sessions").json()

    assert response.status_code == 204
    assert codes == [200, 401, 200]
    assert [(s["user_agent"], s["current"]) for s in listed] == [(LAPTOP, True)]


def test_sign_out_everywhere_ends_this_session_too_and_keeps_the_keys(api: Api) -> None:
    email = api.new_user()
    with (
        _browser(api, email, LAPTOP) as laptop,
        _browser(api, email, PHONE) as phone,
        api.key_client(email) as script,
    ):
        response = phone.post("/api/auth/logout-all")
        codes = [c.get("/api/me").status_code for c in (laptop, phone, script)]
        listed = script.get("/api/auth/sessions").json()

    assert response.status_code == 204
    assert codes == [401, 401, 200]
    assert listed == []


def test_a_keys_last_use_is_listed_after_it_is_used(api: Api) -> None:
    email = api.new_user()
    with _browser(api, email, LAPTOP) as owner:
        created = owner.post("/api/keys", json={"name": "notebook"}).json()
        before = owner.get("/api/keys").json()
        with api.client(Authorization=f"Bearer {created['key']}") as notebook:
            notebook.get("/api/me").raise_for_status()
        after = owner.get("/api/keys").json()

    assert [k["last_used_at"] for k in before] == [None]
    used = datetime.fromisoformat(after[0]["last_used_at"])
    assert used >= datetime.fromisoformat(after[0]["created_at"])
