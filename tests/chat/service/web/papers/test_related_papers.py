"""Related papers on a paper's page and in its dock, in Chromium, over FiD, DPR and RAG read
from their real PDFs: each listed with its reasons and linked to its page; and an answer's
quoted sentence followed to the reference it cites itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from chat.library.papers import page_path
from tests.fakes.openai import FakeOpenAI
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api, serve_index
from tests.support.worlds.citations import DPR, FID, RAG, cited_index_fixture  # noqa: F401 - fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module", name="related_api")
def related_api_fixture(
    cited_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("related-db") / "paperchat.sqlite"
    yield from serve_index(cited_index, fake_llm, database)


@pytest.fixture(scope="module", name="extractive_api")
def extractive_api_fixture(
    cited_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("quoted-db") / "paperchat.sqlite"
    yield from serve_index(cited_index, fake_llm, database, llm="extractive")


def canonical(api: Api, paper_id: str) -> str:
    """The paper page's canonical path, which links to it name."""
    paper = api.services.index.catalog.get_paper(paper_id)
    assert paper is not None
    assert page_path(paper).startswith(f"/papers/{paper_id}-")
    return page_path(paper)


def test_the_paper_page_lists_related_papers_with_their_reasons(
    related_api: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{related_api.base_url}/papers/{FID}")

    block = page.get_by_role("region", name="Related papers")
    block.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "paper-related.png"))

    expect(block).to_be_visible()
    items = block.get_by_role("listitem")
    hrefs = [items.nth(i).get_by_role("link").get_attribute("href") for i in range(items.count())]
    dpr_page, rag_page = (canonical(related_api, paper_id) for paper_id in (DPR, RAG))
    assert {dpr_page, rag_page} <= set(hrefs)
    dpr = items.nth(hrefs.index(dpr_page))
    assert "cited by it" in dpr.inner_text()
    assert "of the same papers" in dpr.inner_text()


def test_the_dock_on_a_paper_page_offers_its_related_papers(related_api: Api, page: Page) -> None:
    page.goto(f"{related_api.base_url}/papers/{FID}")
    dock = Dock(page)

    dock.sign_in(related_api.new_user())

    line = page.locator("paperchat-dock").locator("[data-related]")
    expect(line).to_be_visible(timeout=WAIT_MS)
    expect(line).to_contain_text("Related:")
    hrefs = [link.get_attribute("href") for link in line.get_by_role("link").all()]
    # At the canonical page the API names, not the bare id that redirects there.
    assert f"{related_api.base_url}{canonical(related_api, DPR)}" in hrefs
    assert f"{related_api.base_url}{canonical(related_api, RAG)}" in hrefs


def test_the_dock_links_an_answers_sources_at_their_canonical_pages(
    extractive_api: Api, page: Page
) -> None:
    page.goto(f"{extractive_api.base_url}/")
    dock = Dock(page)
    dock.sign_in(extractive_api.new_user())

    dock.ask("How does FiD retrieve passages?")
    answer = dock.wait_answered()

    titles = answer.locator(".paper-source a.paper-title")
    expect(titles.first).to_be_attached(timeout=WAIT_MS)
    papers = [
        titles.nth(i).evaluate("a => a.closest('.paper-source').dataset.paper")
        for i in range(titles.count())
    ]
    assert FID in papers
    for i, paper_id in enumerate(papers):
        wanted = f"{extractive_api.base_url}{canonical(extractive_api, paper_id)}"
        assert titles.nth(i).get_attribute("href") == wanted
        passages = answer.locator(f".paper-source[data-paper='{paper_id}'] li a")
        for j in range(passages.count()):
            href = passages.nth(j).get_attribute("href") or ""
            assert href.startswith(f"{wanted}?chunk=") or href == wanted, href
    chips = answer.locator("a.cite")
    for i in range(chips.count()):
        assert "/papers/" in (href := chips.nth(i).get_attribute("href") or "")
        assert href.split("?")[0].split("/papers/")[1].count("-") >= 1, href


def test_the_dock_links_the_reference_a_quoted_sentence_cites(
    extractive_api: Api, page: Page
) -> None:
    page.goto(f"{extractive_api.base_url}/")
    dock = Dock(page)
    dock.sign_in(extractive_api.new_user())

    dock.ask("How does FiD retrieve passages?")
    answer = dock.wait_answered()

    cited = answer.locator("[data-quote-references]")
    expect(cited.first).to_be_visible(timeout=WAIT_MS)
    hrefs = [link.get_attribute("href") for link in cited.get_by_role("link").all()]
    assert f"{extractive_api.base_url}/papers/{DPR}" in hrefs
    assert "(cites " in cited.first.inner_text()
