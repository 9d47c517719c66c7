"""The paper page's "Discussed in the library": what the library's papers that cite it say of
it (their citing sentences read from their real PDFs), in HTML, in Markdown and in Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.running.server import Api
from tests.support.worlds.citations import DPR, FID
from tests.support.worlds.reader import first_abstract_id

pytestmark = pytest.mark.timeout(300)


def _discussions(api: Api, paper_id: str) -> list[dict[str, Any]]:
    """Every page's discussions of the paper, as the annotations route gives them."""
    with api.client() as client:
        pages = client.get(f"/papers/{paper_id}/pages/1/annotations").json()["pages"]
        return [
            said
            for n in range(1, pages + 1)
            for said in client.get(f"/papers/{paper_id}/pages/{n}/annotations").json()[
                "discussions"
            ]
        ]


def test_a_cited_papers_page_lists_the_citing_sentences_of_the_library(cited_web: Api) -> None:
    placed = _discussions(cited_web, DPR)

    with cited_web.client() as client:
        html = client.get(f"/papers/{DPR}", follow_redirects=True).text
        markdown = client.get(f"/papers/{DPR}.md").text

    assert placed
    section = html[
        html.index('id="discussed-heading"') : html.index(
            "</section>", html.index('id="discussed-heading"')
        )
    ]
    assert all(said["sentence"].replace("'", "&#39;").split(" ")[0] in section for said in placed)
    assert f'href="/papers/{FID}-' in section
    assert "## Discussed in the library" in markdown
    assert FID in markdown.split("## Discussed in the library", 1)[1]


def test_a_paper_no_library_paper_cites_has_no_discussed_section(cited_web: Api) -> None:
    with cited_web.client() as client:
        html = client.get(f"/papers/{first_abstract_id()}", follow_redirects=True).text

    assert 'id="discussed-heading"' not in html


def test_on_page_n_here_goes_to_the_page_the_sentence_speaks_of(
    cited_web: Api, page: Page, artifacts: Path
) -> None:
    placed = next(said for said in _discussions(cited_web, DPR) if said["placed_on"] > 1)
    page.goto(f"{cited_web.base_url}/papers/{DPR}")
    section = page.get_by_role("region", name="Discussed in the library")
    expect(section.locator("q").first).to_be_visible()
    section.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "paper-discussed.png")

    section.get_by_role("link", name=f"about page {placed['placed_on']} here").first.click()

    target = page.locator(f'.reader-page[data-page="{placed["placed_on"]}"]')
    expect(target).to_be_in_viewport()
    expect(page.get_by_label("Page number")).to_have_value(re.compile(str(placed["placed_on"])))
