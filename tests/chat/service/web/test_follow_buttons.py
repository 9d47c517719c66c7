"""Following from the pages, in Chromium: a paper's new versions and its categories from its
page, a search from its results; each lands in /api/follows for the signed-in user."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.support.dock import Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(120)


def _follows(web: Api, email: str) -> set[tuple[str, str]]:
    with web.signed_in(email) as client:
        listed = client.get("/api/follows").json()["follows"]
    return {(f["kind"], f["value"]) for f in listed}


def test_a_paper_and_its_category_are_followed_from_its_page(web: Api, page: Page) -> None:
    email = web.new_user()
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    Dock(page).sign_in(email)
    versions = page.locator("[data-kind=paper]")
    expect(versions).to_have_text("Follow new versions")
    category = page.locator("[data-kind=category]").first
    name = category.get_attribute("data-value")

    versions.click()
    expect(versions).to_have_attribute("aria-pressed", "true")
    category.click()
    expect(category).to_have_text(f"Following {name}")

    assert _follows(web, email) == {("paper", PAPER_ID), ("category", str(name))}


def test_a_search_is_followed_from_its_results(web: Api, page: Page) -> None:
    email = web.new_user()
    page.goto(f"{web.base_url}/")
    Dock(page).sign_in(email)
    page.goto(f"{web.base_url}/?q=gesture+recognition")

    button = page.locator("[data-kind=search]")
    expect(button).to_have_text("Follow this search")
    button.click()

    expect(page.locator(".follow-note")).to_contain_text("Latest for you")
    expect(button).to_have_text("Following")
    assert _follows(web, email) == {("search", "gesture recognition")}
