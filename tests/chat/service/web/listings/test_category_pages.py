"""Category pages: reached in Chromium from a paper's category label, they list the
category's papers newest first with its Atom feed and a Follow button; pages of a large
category hold each paper once; Markdown by Accept or `.md`; a clear 404 for a category the
index lacks."""

from __future__ import annotations

from pathlib import Path

import feedparser
import pytest
from playwright.sync_api import Page, expect

from chat.library.categories import CategoryNotFound, category_papers, category_size
from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID
from tests.support.dock import Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)


def test_a_category_label_leads_to_its_papers_newest_first(
    web: Api, page: Page, artifacts: Path
) -> None:
    catalog = web.services.index.catalog
    paper = catalog.get_paper(PAPER_ID)
    assert paper is not None
    category = paper.categories[0]
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")

    page.locator(".facts .categories").get_by_role("link", name=category, exact=True).click()

    expect(page).to_have_url(f"{web.base_url}/categories/{category}")
    expect(page.locator("h1")).to_have_text(category)
    page.screenshot(path=artifacts / "category-page.png", full_page=True)
    listed = page.locator(".result").evaluate_all("items => items.map(i => i.dataset.paper)")
    assert PAPER_ID in listed
    assert len(listed) == category_size(catalog, category)
    days = page.locator(".result time").evaluate_all("ts => ts.map(t => t.dateTime)")
    assert days == sorted(days, reverse=True)
    feed = page.locator('link[rel=alternate][type="application/atom+xml"]').last
    assert feed.get_attribute("href") == f"/feeds/categories/{category}.atom"


def test_the_category_feed_its_page_names_is_valid_and_lists_its_papers(web: Api) -> None:
    with web.client() as client:
        html = client.get("/categories/hep-th")
        feed = feedparser.parse(client.get("/feeds/categories/hep-th.atom").content)

    assert html.status_code == 200
    assert 'href="/feeds/categories/hep-th.atom"' in html.text
    assert not feed.bozo
    assert len(feed.entries) == 1
    assert feed.entries[0].link.startswith(f"{web.base_url}/papers/{OLD_STYLE_ID}-strings-on-ads5")
    assert feed.feed.links[1].href == f"{web.base_url}/categories/hep-th"


def test_a_category_is_followed_from_its_page(web: Api, page: Page) -> None:
    email = web.new_user()
    page.goto(f"{web.base_url}/")
    Dock(page).sign_in(email)
    page.goto(f"{web.base_url}/categories/hep-th")

    button = page.locator("[data-kind=category]")
    expect(button).to_have_text("Follow hep-th")
    button.click()

    expect(button).to_have_text("Following hep-th")
    with web.signed_in(email) as client:
        follows = client.get("/api/follows").json()["follows"]
    assert {(f["kind"], f["value"]) for f in follows} == {("category", "hep-th")}


def test_pages_of_a_category_hold_each_of_its_papers_once_newest_first(web: Api) -> None:
    catalog = web.services.index.catalog
    category = "cs.CV"
    total = category_size(catalog, category)
    first = category_papers(catalog, category, 1, per_page=4)

    pages = [category_papers(catalog, category, n, per_page=4) for n in range(1, first.pages + 1)]

    assert total > 8
    assert first.pages == -(-total // 4)
    ids = [p.id for found in pages for p in found.papers]
    assert len(ids) == len(set(ids)) == total
    days = [p.published or p.updated for found in pages for p in found.papers]
    assert days == sorted(days, reverse=True)
    assert all(category in p.categories for found in pages for p in found.papers)
    with pytest.raises(CategoryNotFound):
        category_papers(catalog, category, first.pages + 1, per_page=4)


def test_a_category_page_as_markdown_by_accept_or_suffix(web: Api) -> None:
    with web.client() as client:
        html = client.get("/categories/hep-th")
        by_accept = client.get("/categories/hep-th", headers={"Accept": "text/markdown"})
        by_suffix = client.get("/categories/hep-th.md")

    assert html.headers["content-type"].startswith("text/html")
    assert "Accept" in html.headers["vary"]
    for response in (by_accept, by_suffix):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/markdown")
    assert by_accept.text == by_suffix.text
    assert by_accept.text.startswith("# Category hep-th\n")
    assert f"{web.base_url}/papers/{OLD_STYLE_ID}-strings-on-ads5" in by_accept.text
    assert f"{web.base_url}/feeds/categories/hep-th.atom" in by_accept.text


@pytest.mark.parametrize("wanted", ["cs.XX", "no such thing", "cs.CV?page=99"])
def test_a_category_the_index_lacks_is_a_clear_404(web: Api, wanted: str) -> None:
    with web.client() as client:
        response = client.get(f"/categories/{wanted}")

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "No category" in response.text
    assert "Categories are written as arXiv writes them" in response.text
    assert "harvest" not in response.text  # nothing harvests unless its administrator says so
