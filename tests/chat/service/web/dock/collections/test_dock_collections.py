"""The dock and the reader's collections, in Chromium: a question answered only from a
collection chosen in the scope picker (`collection_id` sent, the sources its papers alone),
and a source's paper saved to a collection, a new name making one."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock, json_body
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

QUESTION = "How are hand gestures recognised from several modalities?"


def _collections(web: Api, email: str) -> dict[str, list[str]]:
    """Each of the user's collections by name, with its papers' ids."""
    with web.signed_in(email) as client:
        listed = client.get("/api/collections").json()["collections"]
        return {
            c["name"]: [p["id"] for p in client.get(f"/api/collections/{c['id']}/papers").json()]
            for c in listed
        }


def test_a_question_is_answered_only_from_the_collection_chosen(web: Api, page: Page) -> None:
    email = web.new_user()
    with web.signed_in(email) as client:
        made = client.post("/api/collections", json={"name": "Gestures"}).json()
        client.post(f"/api/collections/{made['id']}/papers", json={"paper_id": PAPER_ID})
    web.fake.script_chat(
        ChatScript(pieces=(f"Trained with several modalities [arXiv:{PAPER_ID}].",))
    )
    page.goto(web.base_url)
    dock = Dock(page)
    dock.sign_in(email)
    picker = page.get_by_label("Only from the collection")
    expect(picker).to_be_visible(timeout=WAIT_MS)

    picker.select_option(label="Gestures")
    with page.expect_request(lambda r: r.url.endswith("/api/chat")) as sent:
        dock.ask(QUESTION)
    answer = dock.wait_answered()

    body = json_body(sent.value)
    assert (body["collection_id"], body["paper_ids"]) == (made["id"], [])
    papers = answer.locator(".paper-source")
    expect(papers).not_to_have_count(0, timeout=WAIT_MS)
    assert set(papers.evaluate_all("els => els.map(e => e.dataset.paper)")) == {PAPER_ID}


def test_without_collections_the_picker_is_not_shown_and_none_is_sent(web: Api, page: Page) -> None:
    page.goto(web.base_url)
    dock = Dock(page)
    dock.sign_in(web.new_user())

    with page.expect_request(lambda r: r.url.endswith("/api/chat")) as sent:
        dock.ask(QUESTION)
    dock.wait_answered()

    expect(page.get_by_label("Only from the collection")).to_be_hidden()
    assert "collection_id" not in json_body(sent.value)


def test_a_sources_paper_is_saved_to_a_new_collection_from_the_keyboard(
    web: Api, page: Page, artifacts: Path
) -> None:
    email = web.new_user()
    web.fake.script_chat(
        ChatScript(pieces=(f"Trained with several modalities [arXiv:{PAPER_ID}].",))
    )
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(email)
    dock.ask(QUESTION)
    source = dock.wait_answered().locator(f'.paper-source[data-paper="{PAPER_ID}"]')

    source.get_by_role("button", name="Save to… a collection").focus()
    page.keyboard.press("Enter")
    page.keyboard.type("Reading list")
    page.keyboard.press("Enter")

    expect(source.get_by_role("status")).to_have_text("Saved to “Reading list”.", timeout=WAIT_MS)
    assert _collections(web, email) == {"Reading list": [PAPER_ID]}
    picker = page.get_by_label("Only from the collection")
    expect(picker.locator("option")).to_have_text(["none: the papers in scope", "Reading list"])
    page.screenshot(path=str(artifacts / "dock-collections.png"))
