"""The dock embedded with one script tag in a page of another origin (another port)."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import Dock
from tests.support.running.server import Api
from tests.support.worlds.reader import reader_link

pytestmark = pytest.mark.timeout(240)

CITED = f"[arXiv:{PAPER_ID}]"
RED = "rgb(255, 0, 0)"


def test_embedded_dock_signs_in_with_the_session_and_answers(
    web: Api, host_origin: str, page: Page, dialogs: list[str]
) -> None:
    web.fake.script_chat(ChatScript(pieces=("Embedded ", "answer ", CITED, ".")))
    page.goto(host_origin)
    dock = Dock(page)
    dock.sign_in(web.new_user())

    dock.ask("What does this paper propose?")
    answer = dock.wait_answered()

    expect(answer.locator(".answer")).to_have_text(f"Embedded answer arXiv:{PAPER_ID}.")
    expect(answer.locator("a.cite")).to_have_attribute("href", reader_link(web.base_url, PAPER_ID))
    expect(answer.locator(".sources li")).not_to_have_count(0)
    assert dialogs == []


def test_embedded_dock_with_a_key_answers_without_cookies(
    web: Api, host_origin: str, page: Page, context: BrowserContext
) -> None:
    email = web.new_user()
    page.goto(f"{host_origin}/?key={web.key_for(email)}")
    dock = Dock(page)
    dock.open()
    expect(dock.who).to_have_text(f"{email} (API key)")

    dock.ask("What does this paper propose?")
    answer = dock.wait_answered()

    expect(answer.locator(".answer")).to_have_text("Hello, world.")
    expect(page.get_by_label("Password")).to_be_hidden()
    assert context.cookies(web.base_url) == []


def test_host_page_styles_do_not_reach_into_the_dock(
    web: Api, host_origin: str, page: Page
) -> None:
    page.goto(host_origin)
    dock = Dock(page)

    dock.open()

    expect(page.locator("body > button")).to_have_css("background-color", RED)
    expect(dock.button("Sign in")).not_to_have_css("background-color", RED)
    expect(dock.button("Sign in")).to_be_visible()
    font = dock.button("Sign in").evaluate("button => getComputedStyle(button).fontFamily")
    host_font = page.locator("h1").evaluate("h1 => getComputedStyle(h1).fontFamily")
    assert "Courier" in host_font
    assert "Courier" not in font
