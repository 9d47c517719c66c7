"""Every family of page, in Chromium, checked by axe-core against WCAG 2.2's A and AA
rules: no serious or critical violation, the dock open (signing in, then with an answer and
its sources shown) included. The checker is injected into the page, so the test's browser
context bypasses the page's Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import Dock
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
)
from tests.support.validators import axe_violations

pytestmark = pytest.mark.timeout(300)

PAGES = {
    "home": "/",
    "search": "/?q=gesture%20recognition",
    "search with no match": "/?q=zzzzqqq",
    "paper": f"/papers/{PAPER_ID}",
    "researcher": "/authors/Vishal%20M.%20Patel",
    "category": "/categories/cs.CV",
    "institutions": "/institutions",
    "latest for you": "/latest",
    "follow settings": "/settings",
    "not found": "/papers/9999.99999",
}
CITED = f"[arXiv:{PAPER_ID}]"
FID = "2007.01282"  # a PDF of the small index, whose page 1 names Inria


@pytest.fixture
def checked(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    context.set_default_timeout(20_000)
    yield context
    context.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_a_page_has_no_serious_wcag_violation(web: Api, checked: BrowserContext, name: str) -> None:
    page = checked.new_page()
    page.goto(f"{web.base_url}{PAGES[name]}")

    violations = axe_violations(page)

    assert [str(v) for v in violations] == []


def test_the_dock_signing_in_and_answering_has_no_serious_wcag_violation(
    web: Api, checked: BrowserContext
) -> None:
    web.fake.script_chat(ChatScript(pieces=("Multimodal training helps ", CITED, ".")))
    page: Page = checked.new_page()
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.open()
    signing_in = axe_violations(page)
    dock.sign_in(web.new_user())
    dock.ask("How does multimodal training help?")
    answer = dock.wait_answered()
    expect(answer).to_contain_text("Multimodal training helps")

    answered = axe_violations(page)

    assert [str(v) for v in signing_in] == []
    assert [str(v) for v in answered] == []


def test_a_signed_in_readers_pages_have_no_serious_wcag_violation(
    web: Api, checked: BrowserContext
) -> None:
    page = checked.new_page()
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    Dock(page).sign_in(web.new_user())
    found = {}

    for path in ("/latest", "/settings"):
        page.goto(f"{web.base_url}{path}")
        found[path] = [str(v) for v in axe_violations(page)]

    assert found == {"/latest": [], "/settings": []}


def test_the_checker_finds_a_nested_interactive_graph(web: Api, checked: BrowserContext) -> None:
    page = checked.new_page()
    page.goto(f"{web.base_url}/")
    page.evaluate(
        """() => document.querySelector("main").insertAdjacentHTML("beforeend",
        '<svg role="img" aria-label="graph"><a href="/"><text y="10">x</text></a></svg>')"""
    )

    violations = axe_violations(page)

    assert "nested-interactive" in [v.rule for v in violations]


def test_pages_of_a_read_pdf_have_no_serious_wcag_violation(
    api: Api, checked: BrowserContext
) -> None:
    page = checked.new_page()
    found = {}

    page.goto(f"{api.base_url}/papers/{FID}")
    expect(page.locator("[data-references]")).to_be_visible()
    found["paper with its reader"] = [str(v) for v in axe_violations(page)]
    page.goto(f"{api.base_url}/institutions?q=inria")
    page.get_by_role("link", name="Inria", exact=True).click()
    expect(page.locator("#members-heading")).to_be_visible()
    found["institution"] = [str(v) for v in axe_violations(page)]

    assert found == {"paper with its reader": [], "institution": []}
