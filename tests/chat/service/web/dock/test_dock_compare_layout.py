"""The Compare view's table in Chromium: every column within the panel when the panel is
wide enough, a table that scrolls sideways (from the keyboard too, its papers' column kept,
a note saying so) when it is not, and a line that shows the table filling while a slow
comparison runs; the view passes axe-core's WCAG 2.2 A/AA rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api
from tests.support.validators import axe_violations
from tests.support.worlds.compare import (  # noqa: F401 - pytest fixtures, used by name
    DPR,
    FID,
    compare_api_fixture,
    compare_index_fixture,
    compare_model_api_fixture,
)

pytestmark = pytest.mark.timeout(300)

QUESTION = "Which datasets are used to evaluate open-domain question answering retrieval?"


def _open_table(api: Api, page: Page) -> Locator:
    page.goto(f"{api.base_url}/")
    dock = Dock(page)
    dock.sign_in(api.new_user())
    dock.ask(QUESTION)
    answer = dock.wait_answered()
    answer.get_by_role("button", name="Compare these papers").click()
    return page.locator("paperchat-dock").get_by_role("region", name="Compare papers")


def _right(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"]


def test_every_column_of_the_table_shows_within_a_wide_panel(
    compare_api: Api, page: Page, artifacts: Path
) -> None:
    view = _open_table(compare_api, page)
    expect(view.get_by_role("status")).to_contain_text("quoted", timeout=WAIT_MS)
    page.screenshot(path=str(artifacts / "dock-compare-wide.png"))

    wrap = view.locator(".compare-wrap")
    last = view.locator("thead th").last

    assert _right(last) <= _right(wrap) + 1
    expect(view.get_by_text("Scroll the table sideways")).to_be_hidden()


def test_on_a_phone_the_table_scrolls_sideways_to_its_last_column(
    compare_api: Api, page: Page, artifacts: Path
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    view = _open_table(compare_api, page)
    expect(view.get_by_role("status")).to_contain_text("quoted", timeout=WAIT_MS)
    wrap = view.locator(".compare-wrap")
    last = view.locator("thead th").last
    expect(view.get_by_text("Scroll the table sideways")).to_be_visible()

    wrap.focus()
    # Each key scrolls a step, smoothly: keep pressing (a few seconds at most) until the
    # last column has come in, rather than reading positions while the scroll still moves.
    for _ in range(80):
        if _right(last) <= _right(wrap) + 1:
            break
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(50)
    page.screenshot(path=str(artifacts / "dock-compare-phone-scrolled.png"))

    assert _right(last) <= _right(wrap) + 1
    paper = view.locator("tbody th").first
    assert paper.bounding_box() is not None
    assert paper.is_visible()
    assert wrap.evaluate("el => el.scrollLeft") > 0


def test_a_slow_comparison_shows_the_table_filling(
    compare_model_api: Api, page: Page, artifacts: Path
) -> None:
    answer = ChatScript(
        pieces=("DPR is evaluated on NQ ", f"[arXiv:{DPR}]", f" as FiD [arXiv:{FID}].")
    )
    compare_model_api.fake.script_chat(answer)
    compare_model_api.fake.default_script = ChatScript(pieces=("A", " slow", " cell."), delay=0.4)
    view = _open_table(compare_model_api, page)
    progress = view.locator(".compare-progress")

    expect(progress).to_contain_text("Reading the papers", timeout=WAIT_MS)
    expect(progress).to_contain_text("cells so far", timeout=WAIT_MS)
    page.screenshot(path=str(artifacts / "dock-compare-filling.png"))
    expect(view.get_by_role("status")).to_contain_text("answered", timeout=WAIT_MS * 4)

    expect(progress).to_be_hidden()


def test_the_compare_view_has_no_serious_wcag_violation(compare_api: Api, browser: Browser) -> None:
    # axe-core is injected into the page: its context bypasses the page's CSP.
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        view = _open_table(compare_api, page)
        expect(view.get_by_role("status")).to_contain_text("quoted", timeout=WAIT_MS)

        violations = axe_violations(page)
    finally:
        context.close()

    assert [str(v) for v in violations] == []
