"""`/sitemap.xml`, its files and `/robots.txt`, validated by lxml against XML Schemas of the
sitemap protocol (sitemaps.org 0.9: `data/siteindex.xsd`, `data/sitemap.xsd`) and read for
the protocol's other rules: at most 50,000 absolute, escaped URLs of at most 2,048
characters a file; every paper page at its canonical address, every category's page."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote
from xml.etree import ElementTree

import httpx
import pytest
from lxml import etree

from chat.library.categories import every_category
from chat.library.papers import every_paper
from chat.library.researchers import researcher_path
from chat.service.web.discovery.sitemap import Entry, sitemap_files, sitemap_index, url_set
from ingest.index.names.people import written_names
from ingest.index.paths import paper_path
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
W3C_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
MAX_URLS = 50_000
MAX_LOC_CHARS = 2048
SCHEMAS = Path(__file__).parent / "data"


def schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(SCHEMAS / name))


def valid(document: bytes, name: str) -> None:
    """`document` is valid against the protocol's schema `name`, or the test fails with the
    validator's messages."""
    checker = schema(name)
    if not checker.validate(etree.fromstring(document)):
        pytest.fail(f"not a valid {name}: {checker.error_log}")


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


def test_the_index_and_each_file_are_valid_against_the_protocols_schemas(web: Api) -> None:
    with web.client() as client:
        index = client.get("/sitemap.xml")
        locs = [e["loc"] for e in entries(parsed(index), "sitemap")]
        files = [client.get(loc.removeprefix(web.base_url)) for loc in locs]

    valid(index.content, "siteindex.xsd")
    for response in files:
        parsed(response)
        valid(response.content, "sitemap.xsd")
    assert len(files) >= 2


def test_the_schemas_refuse_what_the_protocol_forbids() -> None:
    ns = "http://www.sitemaps.org/schemas/sitemap/0.9"
    good = f'<urlset xmlns="{ns}"><url><loc>https://a.example/papers/1</loc></url></urlset>'
    relative = f'<urlset xmlns="{ns}"><url><loc>/papers/2401.00001</loc></url></urlset>'
    long = good.replace("/papers/1", "/" + "a" * MAX_LOC_CHARS)
    day = good.replace("</loc>", "</loc><lastmod>02/01/2024</lastmod>")
    extra = good.replace("</loc>", "</loc><title>A</title>")
    unnamed = good.replace(f' xmlns="{ns}"', "")
    checker = schema("sitemap.xsd")

    assert checker.validate(etree.fromstring(good.encode()))
    for bad in (relative, long, day, extra, unnamed):
        assert not checker.validate(etree.fromstring(bad.encode())), bad


def test_the_index_names_files_that_list_every_paper_and_category_page(web: Api) -> None:
    catalog = web.services.index.catalog
    with web.client() as client:
        index = entries(parsed(client.get("/sitemap.xml")), "sitemap")
        files = {e["loc"]: client.get(e["loc"].removeprefix(web.base_url)) for e in index}

    papers_file = f"{web.base_url}/sitemaps/papers-1.xml"
    categories_file = f"{web.base_url}/sitemaps/categories-1.xml"
    assert {papers_file, categories_file} <= set(files)
    urls = entries(parsed(files[papers_file]), "url")
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
    by_loc = {e["loc"]: e for e in index}
    assert by_loc[papers_file]["lastmod"] == max(u["lastmod"] for u in urls)
    categories = entries(parsed(files[categories_file]), "url")
    assert [u["loc"] for u in categories] == [
        f"{web.base_url}/categories/{c}" for c, _, _ in every_category(catalog)
    ]
    assert f"{web.base_url}/categories/hep-th" in {u["loc"] for u in categories}
    for url in (u for response in files.values() for u in entries(parsed(response), "url")):
        check_loc(url["loc"], web.base_url)


def test_the_index_names_a_file_of_every_researcher_page_at_its_canonical_address(
    web: Api,
) -> None:
    catalog = web.services.index.catalog
    with web.client() as client:
        index = entries(parsed(client.get("/sitemap.xml")), "sitemap")
        researchers_file = f"{web.base_url}/sitemaps/researchers-1.xml"
        response = client.get(researchers_file.removeprefix(web.base_url))
        urls = entries(parsed(response), "url")
        pages = {u["loc"]: client.get(u["loc"].removeprefix(web.base_url)) for u in urls[:5]}

    assert researchers_file in {e["loc"] for e in index}
    valid(response.content, "sitemap.xsd")
    # Every author of every paper, as one researcher each, with their newest record's day.
    wanted: dict[str, str] = {}
    for paper in every_paper(catalog):
        record = catalog.get_paper(paper.id)
        assert record is not None
        for written in written_names(record.authors):
            person = catalog.person(written)
            if person is not None and person.names:
                loc = f"{web.base_url}{quote(researcher_path(person))}"
                wanted[loc] = max(wanted.get(loc, ""), paper.updated)
    assert {u["loc"]: u.get("lastmod", "") for u in urls} == wanted
    assert len(urls) > 20
    for loc, page in pages.items():
        check_loc(loc, web.base_url)
        assert page.status_code == 200, loc  # the canonical page itself, no redirect
        assert not page.history, loc


def test_an_old_style_id_is_escaped_in_its_address(web: Api) -> None:
    with web.client() as client:
        urls = entries(parsed(client.get("/sitemaps/papers-1.xml")), "url")
        beyond = client.get("/sitemaps/papers-2.xml")
        unknown = client.get("/sitemaps/people-1.xml")

    assert any("/papers/hep-th/9901001-strings-on-ads5" in u["loc"] for u in urls)
    assert beyond.status_code == 404
    assert unknown.status_code == 404


def test_files_hold_at_most_their_share_of_urls_and_xml_is_escaped() -> None:
    pages = [Entry(f"/papers/2401.{n:05d}-a-b-{n}", "2024-01-02") for n in range(5)]
    files = sitemap_files(pages, per_file=2)
    base = "https://papers.example.org/a&b"

    assert [len(f) for f in files] == [2, 2, 1]
    index = ElementTree.tostring(sitemap_index({"papers": files}, base), encoding="unicode")
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
