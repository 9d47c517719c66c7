"""Defined terms on the reader's pages, in Chromium, over RAG read from its real PDF: each use
of an acronym the paper defines on an earlier page is a target whose card, on hover or
keyboard focus, gives the definition and a link to the page that prints it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.running.server import Api
from tests.support.worlds.citations import RAG

pytestmark = pytest.mark.timeout(300)


def _third_page(page: Page, api: Api) -> None:
    page.goto(f"{api.base_url}/papers/{RAG}")
    page.get_by_label("Page number").fill("3")
    page.get_by_label("Page number").press("Enter")
    expect(page.locator('[data-page="3"]')).to_have_attribute("data-citations", "shown")


def test_hovering_a_defined_acronym_shows_its_definition_and_where_it_is_defined(
    cited_web: Api, page: Page, artifacts: Path
) -> None:
    _third_page(page, cited_web)
    uses = page.get_by_role("group", name="Page 3").get_by_role("button", name="Definition of RAG")
    card = page.get_by_role("tooltip")

    uses.first.hover()

    expect(card).to_be_visible()
    expect(card).to_contain_text("retrieval-augmented generation")
    defined = card.get_by_role("link", name="Defined on page 1")
    expect(defined).to_be_visible()
    assert uses.count() >= 5
    use = uses.first.bounding_box()
    shown = card.bounding_box()
    assert use is not None
    assert shown is not None
    assert shown["y"] >= use["y"] + use["height"] - 1  # below the use, not over it
    page.screenshot(path=artifacts / "reader-term-card.png")

    defined.click()

    expect(page.get_by_label("Page number")).to_have_value("1")
