"""Institution pages in Chromium over the small index of real PDFs: the list links each
institution, its page its papers and researchers, and both read well on a phone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
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
    expect(page.locator("#members-heading")).to_have_text("Researchers at Inria")
    expect(page.locator(".members a")).to_have_text(["Gautier Izacard"])
    expect(page.locator("#researchers-heading")).to_have_text("Other authors of its papers")
    expect(page.locator("#researchers-heading ~ ol a")).to_have_text(["Edouard Grave"])
    page.screenshot(path=artifacts / "institution-page.png", full_page=True)
    page.locator(".members a").first.click()
    expect(page).to_have_url(re.compile(r"/researchers/[a-z2-7]{8}-[a-z-]+$"))
    expect(page.locator("svg.network")).to_be_visible()
    page.screenshot(path=artifacts / "researcher-from-institution.png", full_page=True)


def test_the_institution_page_works_on_a_phone(api: Api, page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})

    page.goto(f"{api.base_url}/institutions?q=inria")
    page.get_by_role("link", name="Inria", exact=True).click()

    expect(page.locator("h1")).to_have_text("Inria")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_api_tells_the_researchers_page_1_puts_at_an_institution(api: Api) -> None:
    with api.key_client() as client:
        (inria, *_) = client.get("/api/institutions", params={"name": "Inria"}).json()["results"]
        (ai2, *_) = client.get("/api/institutions", params={"name": "Allen Institute"}).json()[
            "results"
        ]
        inria_page = client.get(f"/api/institutions/{inria['id']}").json()
        ai2_page = client.get(f"/api/institutions/{ai2['id']}").json()

    assert [(r["name"], r["affiliated"]) for r in inria_page["researchers"]] == [
        ("Gautier Izacard", True),
        ("Edouard Grave", False),
    ]
    at_ai2 = {r["name"] for r in ai2_page["researchers"] if r["affiliated"]}
    assert {"Tal August", "Kyle Lo", "Doug Downey"} <= at_ai2
    assert not {"Zejiang Shen", "David Sontag"} & at_ai2
