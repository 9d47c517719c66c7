"""The search page's filters, sort and result pages in Chromium, and the page as Markdown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from chat.service.web import pages
from chat.service.web.listings.search_form import SearchForm
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)

QUERY = "learning"
PER_PAGE = 4


def test_filters_and_sort_narrow_and_order_the_results(
    web: Api, page: Page, artifacts: Path
) -> None:
    catalog = web.services.index.catalog
    page.goto(f"{web.base_url}/?q={QUERY}")
    heading = page.locator("#results-heading")
    unfiltered = int(heading.inner_text().split()[0])

    page.get_by_label("Category").fill("cs.CV")
    page.get_by_label("Sort").select_option("newest")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(r"category=cs\.CV.*sort=newest"))
    page.screenshot(path=artifacts / "search-filtered.png", full_page=True)

    ids = page.locator(".result .id").all_inner_texts()
    assert ids
    expect(heading).to_contain_text(f"{len(ids)} result")
    assert len(ids) < unfiltered
    papers = [catalog.get_paper(i) for i in ids]
    assert all(p is not None and "cs.CV" in p.categories for p in papers)
    dates = [p.published for p in papers if p is not None]
    assert dates == sorted(dates, reverse=True)
    expect(page.get_by_label("Sort")).to_have_value("newest")
    expect(page.get_by_label("Category")).to_have_value("cs.CV")


def test_result_pages_link_to_each_other(
    web: Api, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "SEARCH_PAGE_RESULTS", PER_PAGE)
    page.goto(f"{web.base_url}/?q={QUERY}&sort=newest")
    total = int(page.locator("#results-heading").inner_text().split()[0])
    first = page.locator(".result .id").all_inner_texts()

    page.locator("[data-pagination]").get_by_role("link", name="2").click()
    page.wait_for_url(re.compile(r"sort=newest&page=2"))

    second = page.locator(".result .id").all_inner_texts()
    assert total > 2 * PER_PAGE
    assert len(first) == len(second) == PER_PAGE
    assert not set(first) & set(second)
    expect(page.locator('[aria-current="page"]')).to_have_text("2")
    expect(page.locator("[data-pagination] a")).to_have_count(-(-total // PER_PAGE))


def test_the_forms_addresses_keep_every_filter() -> None:
    form = SearchForm.read("q & a", "cs.CL", "2020-01-01", "2020-13-45", " Ada  Lovelace ", "x", 0)

    assert form.published_to == ""  # no such day: left out
    assert form.sort == "relevance"
    assert form.page == 1
    assert (
        form.address(3) == "/?q=q+%26+a&category=cs.CL&from=2020-01-01&author=Ada+Lovelace&page=3"
    )
    assert [n for n, _ in form.pages(45, 20)] == [1, 2, 3]


def test_the_search_page_as_markdown_lists_the_same_papers(web: Api) -> None:
    with web.client() as client:
        html = client.get("/", params={"q": QUERY})
        markdown = client.get("/", params={"q": QUERY}, headers={"Accept": "text/markdown"})

    assert markdown.headers["content-type"].startswith("text/markdown")
    assert "Accept" in markdown.headers["vary"]
    assert "Accept" in html.headers["vary"]
    ids = re.findall(r'<span class="id">([^<]+)</span>', html.text)
    listed = re.findall(r"^- \[.*\]\(<[^>]+/papers/([^>]+)>\)", markdown.text, re.M)
    linked = re.findall(r'<h3><a href="/papers/([^"]+)">', html.text)
    assert listed == linked
    assert listed
    assert all(path.startswith(f"{i}-") for i, path in zip(ids, listed, strict=True))
    assert markdown.text.startswith(f"# Search: {QUERY}\n")
