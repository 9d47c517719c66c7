"""A paper's page keeps the reader's notes on it, in Chromium: added, changed and deleted from
the keyboard through the labelled fields and buttons, with the session's CSRF token; another
reader sees none of them, and a reader not signed in is told to sign in."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.support.dock import Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(120)


def _notes(web: Api, email: str) -> list[str]:
    """The texts of the user's notes on `PAPER_ID`, as the API lists them."""
    with web.signed_in(email) as client:
        listed = client.get("/api/notes", params={"paper_id": PAPER_ID}).json()["notes"]
    return [note["text"] for note in listed]


def _signed_in_page(web: Api, page: Page, email: str) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    Dock(page).sign_in(email)
    page.reload()


def test_a_note_is_added_edited_and_deleted_from_the_keyboard(
    web: Api, page: Page, artifacts: Path
) -> None:
    email = web.new_user()
    with web.signed_in(email) as client:
        client.post("/api/notes", json={"paper_id": PAPER_ID, "text": "Read the ablation."})
    _signed_in_page(web, page, email)
    notes = page.locator(".note-list .note-text")
    expect(notes).to_have_text(["Read the ablation."])
    status = page.locator(".note-status")

    page.get_by_label("Add a note").fill("Compare with\n3D CNNs.")
    page.get_by_label("Add a note").press("Tab")
    page.keyboard.press("Enter")
    expect(status).to_have_text("Note added.")
    expect(notes).to_have_text(["Read the ablation.", "Compare with\n3D CNNs."])
    page.screenshot(path=str(artifacts / "paper-notes.png"), full_page=True)
    page.get_by_role("button", name="Edit note 1").focus()
    page.keyboard.press("Enter")
    page.get_by_label("Edit note 1").fill("Read the ablation twice.")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(status).to_have_text("Note saved.")
    expect(page.get_by_role("button", name="Edit note 1")).to_be_focused()
    page.get_by_role("button", name="Delete note 2").focus()
    page.keyboard.press("Enter")
    expect(status).to_have_text("Note deleted.")

    expect(notes).to_have_text(["Read the ablation twice."])
    assert _notes(web, email) == ["Read the ablation twice."]


def test_escape_leaves_a_note_as_it_was(web: Api, page: Page) -> None:
    email = web.new_user()
    with web.signed_in(email) as client:
        client.post("/api/notes", json={"paper_id": PAPER_ID, "text": "Keep me."})
    _signed_in_page(web, page, email)

    page.get_by_role("button", name="Edit note 1").click()
    page.get_by_label("Edit note 1").fill("Changed, not saved.")
    page.keyboard.press("Escape")

    expect(page.locator(".note-list .note-text")).to_have_text(["Keep me."])
    expect(page.get_by_role("button", name="Edit note 1")).to_be_focused()
    assert _notes(web, email) == ["Keep me."]


def test_a_blank_note_is_refused_with_the_apis_reason(web: Api, page: Page) -> None:
    email = web.new_user()
    _signed_in_page(web, page, email)

    page.get_by_label("Add a note").fill("   \n ")
    page.get_by_role("button", name="Add note").click()

    expect(page.locator(".note-status")).to_contain_text("Failed:")
    expect(page.locator("[data-notes-state]")).to_have_text("No notes on this paper yet.")
    assert _notes(web, email) == []


def test_another_reader_sees_none_of_the_notes(web: Api, page: Page) -> None:
    with web.signed_in() as owner:
        owner.post("/api/notes", json={"paper_id": PAPER_ID, "text": "Mine alone."})

    _signed_in_page(web, page, web.new_user())

    expect(page.locator("[data-notes-state]")).to_have_text("No notes on this paper yet.")
    expect(page.locator(".note-list .note")).to_have_count(0)


def test_a_reader_not_signed_in_is_asked_to_sign_in(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")

    page.get_by_label("Add a note").fill("Mine")
    page.get_by_role("button", name="Add note").click()

    expect(page.locator("[data-notes-state]")).to_contain_text("Sign in")
    expect(page.locator(".note-status")).to_contain_text("Sign in")
