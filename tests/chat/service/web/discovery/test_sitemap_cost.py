"""What the sitemap costs: its files are made once for every visitor until the catalog
changes, and a file past what the library could fill is a 404 before anything is made."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from chat.service.web.discovery import sitemap
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from tests.support.worlds.records import add_records, records_site_read_afresh

PAPERS = [
    Paper(id=f"2401.{n:05d}", title=f"Paper {n}", authors=f"Ada Lovelace, Author{n} Smith",
          categories=("cs.CL",), published="2024-01-02")
    for n in range(1, 6)
]  # fmt: skip


def _app(client: TestClient) -> FastAPI:
    assert isinstance(client.app, FastAPI)
    return client.app


@pytest.fixture
def site(tmp_path: Path) -> Iterator[TestClient]:
    with records_site_read_afresh(tmp_path, PAPERS) as client:
        yield client


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each kind's pages were listed."""
    counts: Counter[str] = Counter()

    def counted(
        kind: str, entries: Callable[[Catalog], list[sitemap.Entry]]
    ) -> Callable[..., list[sitemap.Entry]]:
        def listed(catalog: Catalog) -> list[sitemap.Entry]:
            counts[kind] += 1
            return entries(catalog)

        return listed

    kinds = {kind: counted(kind, entries) for kind, entries in sitemap.KINDS.items()}
    monkeypatch.setattr(sitemap, "KINDS", kinds)
    return counts


def test_a_file_past_the_end_is_a_404_before_any_page_is_listed(
    site: TestClient, made: Counter[str]
) -> None:
    answers = [site.get(f"/sitemaps/researchers-{n}.xml").status_code for n in (2, 10**6)]

    assert answers == [404, 404]
    assert made["researchers"] == 0
    assert site.get("/sitemaps/researchers-1.xml").status_code == 200
    assert made["researchers"] == 1


def test_the_sitemap_is_made_once_until_the_catalog_changes(
    site: TestClient, made: Counter[str]
) -> None:
    first = [site.get(path) for path in ["/sitemap.xml"] * 3 + ["/sitemaps/researchers-1.xml"]]
    catalog = _app(site).state.services.index.catalog
    new = Paper(
        id="2402.00001", title="A new paper", authors="Grace Hopper", published="2024-02-01"
    )
    add_records(catalog, [new])
    after = site.get("/sitemaps/researchers-1.xml")

    assert [r.status_code for r in first] == [200] * 4
    assert first[0].content == first[2].content
    assert made == {"papers": 1, "categories": 1, "researchers": 2, "institutions": 1}
    assert b"grace-hopper" in after.content
    assert b"grace-hopper" not in first[3].content
