"""Saving a paper to a collection from its page, in Chromium: a new name makes the collection,
a name the user has adds to it, and a reader not signed in is told to sign in."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.support.dock import Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(120)


def _collections(web: Api, email: str) -> dict[str, list[str]]:
    """Each of the user's collections by name, with its papers' ids."""
    with web.signed_in(email) as client:
        listed = client.get("/api/collections").json()["collections"]
        return {
            c["name"]: [p["id"] for p in client.get(f"/api/collections/{c['id']}/papers").json()]
            for c in listed
        }


def test_a_paper_is_saved_to_a_new_collection_then_to_one_the_user_has(
    web: Api, page: Page
) -> None:
    email = web.new_user()
    with web.signed_in(email) as client:
        client.post("/api/collections", json={"name": "Gestures"})
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    Dock(page).sign_in(email)
    page.reload()
    name = page.locator(".collect-name")
    save = page.locator("[data-collect-action=save]")
    note = page.locator(".collect-note")

    name.fill("  To   read ")
    save.click()
    expect(note).to_have_text("Saved to “To read”.")
    name.fill("Gestures")
    save.click()
    expect(note).to_have_text("Saved to “Gestures”.")

    assert _collections(web, email) == {"Gestures": [PAPER_ID], "To read": [PAPER_ID]}
    expect(page.locator("#collection-names option")).to_have_count(2)


def test_a_reader_not_signed_in_is_asked_to_sign_in(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")

    page.locator(".collect-name").fill("Mine")
    page.locator("[data-collect-action=save]").click()

    expect(page.locator(".collect-note")).to_contain_text("Sign in")
