"""The dock's "Copy BibTeX" button, in Chromium: the cited papers' BibTeX on the clipboard."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)


def test_copy_bibtex_puts_the_cited_papers_on_the_clipboard(
    web: Api, context: BrowserContext, page: Page
) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web.base_url)
    web.fake.script_chat(ChatScript(pieces=(f"It trains unimodal networks [arXiv:{PAPER_ID}].",)))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("What does this paper do?")
    answer = dock.wait_answered()

    with page.expect_response(lambda r: r.url.endswith("/bibtex")) as fetched:
        answer.get_by_role("button", name="Copy BibTeX").click()
    expect(answer.get_by_role("button", name="BibTeX copied")).to_be_visible(timeout=WAIT_MS)

    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == fetched.value.text()
    assert copied.startswith("@misc{abavisani")
    assert f"eprint = {{{PAPER_ID}}}" in copied
    assert "archivePrefix = {arXiv}" in copied


def test_an_answer_that_cites_nothing_has_no_button_and_history_keeps_it(
    web: Api, page: Page
) -> None:
    web.fake.script_chat(
        ChatScript(pieces=("Nothing to cite here.",)),
        ChatScript(pieces=(f"Cited [arXiv:{PAPER_ID}].",)),
    )
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("Say nothing.")
    dock.wait_answered()
    dock.ask("Cite it.")
    dock.wait_answered(2)
    live = [dock.answers.nth(i).get_by_role("button", name="Copy BibTeX") for i in (0, 1)]
    expect(live[0]).to_have_count(0)
    expect(live[1]).to_have_count(1)

    dock.button("History").click()
    page.locator("paperchat-dock .history button").first.click()

    reopened = page.locator('paperchat-dock .assistant[aria-busy="false"]')
    expect(reopened).to_have_count(2, timeout=WAIT_MS)
    expect(reopened.nth(0).get_by_role("button", name="Copy BibTeX")).to_have_count(0)
    expect(reopened.nth(1).get_by_role("button", name="Copy BibTeX")).to_have_count(1)
