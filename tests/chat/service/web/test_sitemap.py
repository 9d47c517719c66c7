"""`/sitemap.xml`, its files and `/robots.txt`, read by an XML parser against the sitemap
protocol's rules (sitemaps.org 0.9): the namespace, the element names, at most 50,000
absolute, escaped URLs a file, W3C dates; every paper page at its canonical address."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import httpx
import pytest

from chat.library.papers import Listed, every_paper, paper_path
from chat.service.web.sitemap import sitemap_files, sitemap_index, url_set
from tests.support.server import Api

pytestmark = pytest.mark.timeout(180)

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
W3C_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
MAX_URLS = 50_000
MAX_LOC_CHARS = 2048


def parsed(response: httpx.Response) -> ElementTree.Element:
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    assert response.content.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    return ElementTree.fromstring(response.content)


def entries(root: ElementTree.Element, parent: str) -> list[dict[str, str]]:
    """Each `parent` element's children by name; only the protocol's names may appear."""
    assert root.tag == f"{NS}{'sitemapindex' if parent == 'sitemap' else 'urlset'}"
    found = []
    for element in root:
        assert element.tag == f"{NS}{parent}"
        children = {child.tag.removeprefix(NS): child.text or "" for child in element}
        assert set(children) <= {"loc", "lastmod", "changefreq", "priority"}
        found.append(children)
    return found


def check_loc(loc: str, base: str) -> None:
    assert loc.startswith(f"{base}/")
    assert len(loc) <= MAX_LOC_CHARS
    assert loc.isascii()
    assert not set(loc) & set(" <>\"'")


def test_the_index_names_files_that_list_every_paper_page(web: Api) -> None:
    catalog = web.services.index.catalog
    with web.client() as client:
        index = entries(parsed(client.get("/sitemap.xml")), "sitemap")
        files = [client.get(e["loc"].removeprefix(web.base_url)) for e in index]

    assert [e["loc"] for e in index] == [f"{web.base_url}/sitemaps/papers-1.xml"]
    urls = [url for response in files for url in entries(parsed(response), "url")]
    assert len(urls) <= MAX_URLS
    papers = {p.id: p for p in every_paper(catalog)}
    wanted = {f"{web.base_url}{paper_path(p.id, p.title, p.is_arxiv)}": p for p in papers.values()}
    assert sorted(u["loc"] for u in urls) == sorted(wanted)
    for url in urls:
        check_loc(url["loc"], web.base_url)
        record = catalog.get_paper(wanted[url["loc"]].id)
        assert record is not None
        assert url["lastmod"] == record.updated
        assert W3C_DATE.match(url["lastmod"])
    assert index[0]["lastmod"] == max(u["lastmod"] for u in urls)


def test_an_old_style_id_is_escaped_in_its_address(web: Api) -> None:
    with web.client() as client:
        urls = entries(parsed(client.get("/sitemaps/papers-1.xml")), "url")
        beyond = client.get("/sitemaps/papers-2.xml")

    assert any("/papers/hep-th/9901001-strings-on-ads5" in u["loc"] for u in urls)
    assert beyond.status_code == 404


def test_files_hold_at_most_their_share_of_urls_and_xml_is_escaped() -> None:
    papers = [Listed(f"2401.{n:05d}", f"A & B <{n}>", True, "2024-01-02") for n in range(5)]
    files = sitemap_files(papers, per_file=2)
    base = "https://papers.example.org/a&b"

    assert [len(f) for f in files] == [2, 2, 1]
    index = ElementTree.tostring(sitemap_index(files, base), encoding="unicode")
    urls = ElementTree.tostring(url_set(files[0], base), encoding="unicode")
    assert "/a&amp;b/sitemaps/papers-3.xml" in index
    assert ElementTree.fromstring(urls)[0][0].text == f"{base}/papers/2401.00000-a-b-0"
    assert sitemap_files([]) == [[]]


def test_robots_txt_names_the_sitemap_and_keeps_crawlers_off_the_apis(web: Api) -> None:
    with web.client() as client:
        response = client.get("/robots.txt")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    lines = response.text.splitlines()
    assert f"Sitemap: {web.base_url}/sitemap.xml" in lines
    assert "Disallow: /api/" in lines
    assert lines[0] == "User-agent: *"
