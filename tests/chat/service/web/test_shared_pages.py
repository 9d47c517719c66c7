"""What every visitor gets alike (the newest papers' feeds, a category's first page) is made
once while the catalog stays as it is, and made again once it changes; requests that want
an answer being made wait for it instead of making it again."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from chat.service.web import pages
from chat.service.web.shared_pages import SharedPages
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from tests.support.worlds.records import add_records, records_site_read_afresh

PAPERS = [
    Paper(id=f"2401.{n:05d}", title=f"Paper {n}", authors=f"Ada Lovelace, Author{n} Smith",
          categories=("cs.CL",), published=f"2024-01-{n:02d}")
    for n in range(1, 6)
]  # fmt: skip
NEW = Paper(
    id="2402.00001", title="A paper of February", authors="Grace Hopper",
    categories=("cs.CL",), published="2024-02-01",
)  # fmt: skip


def _app(client: TestClient) -> FastAPI:
    assert isinstance(client.app, FastAPI)
    return client.app


@pytest.fixture
def site(tmp_path: Path) -> Iterator[TestClient]:
    with records_site_read_afresh(tmp_path, PAPERS) as client:
        yield client


def _pages(site: TestClient) -> SharedPages:
    pages: SharedPages = _app(site).state.shared_pages
    return pages


def _catalog(site: TestClient) -> Catalog:
    catalog: Catalog = _app(site).state.services.index.catalog
    return catalog


@pytest.mark.parametrize(
    "path",
    ["/feeds/latest.atom", "/feeds/categories/cs.CL.atom", "/categories/cs.CL"],
)
def test_a_page_alike_for_all_is_made_once_until_the_catalog_changes(
    site: TestClient, path: str
) -> None:
    first = [site.get(path) for _ in range(3)]
    made = _pages(site).made
    add_records(_catalog(site), [NEW])
    after = site.get(path)

    assert [r.status_code for r in first] == [200, 200, 200]
    assert made == 1
    assert _pages(site).made == 2
    assert "A paper of February" not in first[2].text
    assert "A paper of February" in after.text


def test_a_categorys_later_pages_and_markdown_are_its_papers_too(site: TestClient) -> None:
    html = site.get("/categories/cs.CL").text
    markdown = site.get("/categories/cs.CL.md").text

    assert all(p.title in html and p.title in markdown for p in PAPERS)
    assert site.get("/categories/cs.CL?page=2").status_code == 404
    assert site.get("/categories/no.such").status_code == 404


def test_requests_that_want_an_answer_being_made_wait_for_it() -> None:
    pages = SharedPages(lambda: 7)
    release = threading.Event()
    made: list[int] = []

    def make() -> str:
        made.append(1)
        release.wait(timeout=10)
        return "the sitemap"

    async def twenty_requests() -> list[str]:
        waiting = [asyncio.create_task(pages.get("key", make)) for _ in range(20)]
        await asyncio.sleep(0.2)
        release.set()
        return await asyncio.gather(*waiting)

    # In a thread of its own: a browser test's synchronous Playwright keeps an event loop
    # marked running in the main thread for the rest of the session.
    with ThreadPoolExecutor(1) as thread:
        answers = thread.submit(asyncio.run, twenty_requests()).result(timeout=60)

    assert answers == ["the sitemap"] * 20
    assert made == [1]


@pytest.mark.parametrize("suffix", ["", ".md"])
def test_a_paper_page_is_written_once_until_its_record_changes(
    site: TestClient, suffix: str
) -> None:
    state = _app(site).state
    state.paper_pages = SharedPages(_catalog(site).generation, ttl_s=0)
    path = f"/papers/{PAPERS[0].id}{suffix}"

    first = [site.get(path, follow_redirects=True) for _ in range(3)]
    add_records(_catalog(site), [dataclasses.replace(PAPERS[0], title="A title of February")])
    after = site.get(path, follow_redirects=True)

    assert [r.status_code for r in first] == [200, 200, 200]
    assert first[0].text == first[2].text
    assert "Paper 1" in first[0].text
    assert "A title of February" in after.text
    assert state.paper_pages.made == 2


def test_a_researchers_page_is_made_once_until_the_catalog_changes(site: TestClient) -> None:
    state = _app(site).state
    state.paper_pages = SharedPages(_catalog(site).generation, ttl_s=0)

    first = [site.get("/authors/Ada Lovelace", follow_redirects=True) for _ in range(3)]
    made = state.paper_pages.made
    add_records(_catalog(site), [NEW, dataclasses.replace(NEW, id="2402.00002")])
    after = site.get(str(first[0].url))

    assert [r.status_code for r in first] == [200, 200, 200]
    assert made == 2  # who the profile's id names, and the page
    assert after.status_code == 200
    assert state.paper_pages.made == 4


def test_a_search_page_past_the_most_results_searches_nothing(
    site: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched: list[str] = []
    monkeypatch.setattr(pages, "search_listing", lambda *args: searched.append("search"))

    response = site.get("/", params={"q": "retrieval " * 100, "category": "cs.CL", "page": 200})

    assert response.status_code == 200
    assert "No papers match" in response.text or "0 papers" in response.text
    assert searched == []
