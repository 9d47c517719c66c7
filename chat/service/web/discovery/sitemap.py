"""`/sitemap.xml` and `/robots.txt`: the site's pages for search engines, by the sitemap
protocol (sitemaps.org 0.9): a sitemap index naming files of at most `SITEMAP_URLS` pages
each, by kind (`/sitemaps/papers-1.xml`, `/sitemaps/categories-1.xml`,
`/sitemaps/researchers-1.xml`, `/sitemaps/institutions-1.xml`), each page at its canonical
address with the day of its last change where known (a researcher's: the day their
newest-changed paper changed); robots.txt names the index.

Addresses are absolute, under `PAPERCHAT_PUBLIC_URL` when set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote
from xml.etree import ElementTree

from fastapi import APIRouter, Request, Response

from chat.library.categories import category_path, every_category
from chat.library.institutions import find_institutions
from chat.library.papers import every_paper
from chat.library.researchers import researcher_path
from chat.service.routes.deps import ServicesDep
from chat.service.web.address import site_address
from ingest.index.catalog import Catalog
from ingest.index.paths import paper_path

router = APIRouter(tags=["sitemap"])

SITEMAP_PATH: Final = "/sitemap.xml"
SITEMAP_NAMESPACE: Final = "http://www.sitemaps.org/schemas/sitemap/0.9"
# The protocol's bound on the URLs of one sitemap file.
SITEMAP_URLS: Final = 50_000
XML_TYPE: Final = "application/xml"
# What crawlers may skip: the JSON API, /v1 and MCP answer people signed in, not pages.
_NOT_PAGES: Final = ("/api/", "/v1/", "/mcp")


@dataclass(frozen=True)
class Entry:
    """One page of the sitemap: its path (escaped) and the day it last changed ("" unknown)."""

    path: str
    changed: str


def paper_entries(catalog: Catalog) -> list[Entry]:
    """Every paper page at its canonical path, with the day its record last changed."""
    return [
        Entry(quote(paper_path(p.id, p.title, p.is_arxiv)), p.updated) for p in every_paper(catalog)
    ]


def category_entries(catalog: Catalog) -> list[Entry]:
    """Every category page, with the day its newest paper last changed."""
    return [Entry(quote(category_path(c)), day) for c, _, day in every_category(catalog)]


def researcher_entries(catalog: Catalog) -> list[Entry]:
    """Every researcher page, at its canonical path, with the day the last of their papers'
    records changed; a name that stands for nobody one can tell apart has no page of its own."""
    changed: dict[str, str] = {}
    papers = list(every_paper(catalog))
    bylines = catalog.bylines([p.id for p in papers])
    people = catalog.people(written for byline in bylines.values() for written, _, _ in byline)
    paths = {  # a name as written -> its researcher's page
        written: researcher_path(person) if person and person.names else None
        for written, person in people.items()
    }
    for paper in papers:
        for written, _, _ in bylines.get(paper.id, ()):
            path = paths[written]
            if path is not None:
                changed[path] = max(changed.get(path, ""), paper.updated)
    return [Entry(quote(path), day) for path, day in sorted(changed.items())]


def institution_entries(catalog: Catalog) -> list[Entry]:
    """Every institution page with a paper."""
    return [Entry(quote(i.path), "") for i in find_institutions(catalog)]


# The sitemap's files by kind of page, each cut into files of at most `SITEMAP_URLS`.
KINDS: Final = {
    "papers": paper_entries,
    "categories": category_entries,
    "researchers": researcher_entries,
    "institutions": institution_entries,
}


def sitemap_files(entries: Sequence[Entry], per_file: int = SITEMAP_URLS) -> list[list[Entry]]:
    """`entries` cut into the sitemap files, `per_file` each; one empty file for none."""
    return [list(entries[i : i + per_file]) for i in range(0, len(entries), per_file)] or [[]]


def _document(root: ElementTree.Element) -> Response:
    body = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, media_type=XML_TYPE)


def _element(parent: ElementTree.Element, name: str, text: str) -> None:
    ElementTree.SubElement(parent, name).text = text


def sitemap_index(files: Mapping[str, Sequence[Sequence[Entry]]], base: str) -> ElementTree.Element:
    """The index naming each kind's files (`/sitemaps/papers-1.xml`, ...) with the day
    their newest page changed; a kind without pages is left out."""
    root = ElementTree.Element("sitemapindex", xmlns=SITEMAP_NAMESPACE)
    for kind, parts in files.items():
        for number, entries in enumerate(parts, 1):
            if not entries and kind != "papers":
                continue
            sitemap = ElementTree.SubElement(root, "sitemap")
            _element(sitemap, "loc", f"{base}/sitemaps/{kind}-{number}.xml")
            changed = max((e.changed for e in entries), default="")
            if changed:
                _element(sitemap, "lastmod", changed)
    return root


def url_set(entries: Sequence[Entry], base: str) -> ElementTree.Element:
    root = ElementTree.Element("urlset", xmlns=SITEMAP_NAMESPACE)
    for entry in entries:
        url = ElementTree.SubElement(root, "url")
        _element(url, "loc", f"{base}{entry.path}")
        if entry.changed:
            _element(url, "lastmod", entry.changed)
    return root


@router.get(SITEMAP_PATH, include_in_schema=False)
def sitemap(request: Request, services: ServicesDep) -> Response:
    """The sitemap index: the files that list every paper, category, researcher and
    institution page."""
    catalog = services.index.catalog
    files = {kind: sitemap_files(entries(catalog)) for kind, entries in KINDS.items()}
    return _document(sitemap_index(files, site_address(request, services.settings)))


@router.get("/sitemaps/{kind}-{number:int}.xml", include_in_schema=False)
def pages_sitemap(kind: str, number: int, request: Request, services: ServicesDep) -> Response:
    """One sitemap file: its pages, each with the day it last changed when known."""
    entries = KINDS.get(kind)
    files = sitemap_files(entries(services.index.catalog)) if entries else []
    if not 1 <= number <= len(files) or (not files[0] and kind != "papers"):
        return Response(f"no sitemap file {kind}-{number}", 404, media_type="text/plain")
    return _document(url_set(files[number - 1], site_address(request, services.settings)))


@router.get("/robots.txt", include_in_schema=False)
def robots(request: Request, services: ServicesDep) -> Response:
    """Pages are open to crawlers, the APIs are not; names the sitemap."""
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in _NOT_PAGES), "Allow: /"]
    lines += ["", f"Sitemap: {site_address(request, services.settings)}{SITEMAP_PATH}"]
    return Response("\n".join(lines) + "\n", media_type="text/plain")
