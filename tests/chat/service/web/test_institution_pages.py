"""Institution pages in Chromium over the small index of real PDFs: the list links each
institution, its page its papers and researchers, and both read well on a phone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)

FID = "2007.01282"  # its page 1 names Inria


def test_an_institution_from_the_list_shows_its_paper_and_researchers(
    api: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{api.base_url}/institutions")
    page.screenshot(path=artifacts / "institutions.png", full_page=True)

    page.get_by_role("link", name="Inria", exact=True).click()

    expect(page.locator("h1")).to_have_text("Inria")
    expect(page.locator(".result")).to_have_count(1)
    expect(page.locator(".result h3 a")).to_have_attribute(
        "href", re.compile(rf"^/papers/{re.escape(FID)}-leveraging-passage-retrieval-[a-z-]+$")
    )
    expect(page.locator(".based-on")).to_contain_text("1 on page 1 of the PDF")
    expect(page.locator("#researchers-heading")).to_have_text("Authors of its papers")
    page.screenshot(path=artifacts / "institution-page.png", full_page=True)
    page.locator(".coauthor-list a").first.click()
    expect(page).to_have_url(re.compile(r"/researchers/[a-z2-7]{8}-[a-z-]+$"))
    expect(page.locator("svg.network")).to_be_visible()
    page.screenshot(path=artifacts / "researcher-from-institution.png", full_page=True)


def test_the_institution_page_works_on_a_phone(api: Api, page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})

    page.goto(f"{api.base_url}/institutions?q=inria")
    page.get_by_role("link", name="Inria", exact=True).click()

    expect(page.locator("h1")).to_have_text("Inria")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
