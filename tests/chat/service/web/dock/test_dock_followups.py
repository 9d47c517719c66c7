"""A follow-up asked about the previous answer's papers shows that scope as a chip, in
Chromium against the real service with no model; removing the chip asks again unscoped."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.support.dock import WAIT_MS, Dock, json_body
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

FIRST = "How does multimodal training improve unimodal dynamic hand-gesture recognition?"
FOLLOW_UP = "Who wrote it?"


def test_a_follow_up_shows_the_papers_it_was_asked_about_and_the_chip_removes_them(
    extractive_web: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{extractive_web.base_url}/")
    dock = Dock(page)
    dock.sign_in(extractive_web.new_user())
    dock.ask(FIRST)
    first = dock.wait_answered()
    expect(first).to_contain_text(f"arXiv:{PAPER_ID}")
    expect(first.locator(".carried")).to_have_count(0)
    bodies: list[dict[str, object]] = []

    def record(request: Request) -> None:
        if request.url.endswith("/api/chat"):
            bodies.append(json_body(request))

    page.on("request", record)

    dock.ask(FOLLOW_UP)
    second = dock.wait_answered(2)

    chip = second.locator(".carried")
    expect(chip).to_contain_text("about Improving the Performance of Unimodal")
    expect(second).to_contain_text("Mahdi Abavisani")
    page.screenshot(path=artifacts / "dock-follow-up-scope.png")
    chip.get_by_role("button", name="Ask again about all papers, not only these").click()
    third = dock.wait_answered(3)
    expect(third.locator(".carried")).to_have_count(0, timeout=WAIT_MS)
    assert [b.get("follow_up", True) for b in bodies] == [True, False]
    assert [b["message"] for b in bodies] == [FOLLOW_UP, FOLLOW_UP]


def test_a_conversation_opened_again_keeps_its_scope_chip_and_its_quoted_passages(
    extractive_web: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{extractive_web.base_url}/")
    dock = Dock(page)
    dock.sign_in(extractive_web.new_user())
    dock.ask(FIRST)
    dock.wait_answered()
    dock.ask(FOLLOW_UP)
    dock.wait_answered(2)
    live = [chip.get_attribute("href") for chip in dock.answers.first.locator("a.cite").all()]

    page.reload()

    expect(dock.panel).to_be_visible(timeout=WAIT_MS)  # it stays open across the page load

    expect(dock.answers).to_have_count(2, timeout=WAIT_MS)
    reopened = dock.answers.first.locator("a.cite")
    expect(reopened.first).to_be_visible(timeout=WAIT_MS)
    assert [chip.get_attribute("href") for chip in reopened.all()] == live
    assert all("quote=" in (href or "") for href in live)
    chip = dock.answers.nth(1).locator(".carried")
    expect(chip).to_contain_text("about Improving the Performance of Unimodal")
    page.screenshot(path=artifacts / "dock-reopened-scope.png")
