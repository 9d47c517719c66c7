"""The dock's account view: the browsers signed in to the account, and signing out of all."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(120)


def test_sign_out_everywhere_ends_this_browser_and_the_others(web: Api, page: Page) -> None:
    email = web.new_user()
    other_browser = web.signed_in(email)
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(email)
    dock.button("Account").click()
    sessions = page.locator("paperchat-dock .sessions li")
    expect(sessions).to_have_count(2, timeout=WAIT_MS)
    expect(sessions.filter(has_text="This browser")).to_have_count(1)

    dock.button("Sign out everywhere").click()

    expect(page.get_by_label("Password")).to_be_visible(timeout=WAIT_MS)
    with other_browser:
        assert other_browser.get("/api/me").status_code == 401
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    me = httpx.get(f"{web.base_url}/api/me", cookies=cookies, timeout=20)
    assert me.status_code == 401
