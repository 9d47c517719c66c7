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
from functools import partial
from typing import Final
from urllib.parse import quote
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from fastapi import APIRouter, Request, Response

from chat.library.categories import category_path, every_category
from chat.library.institutions import find_institutions
from chat.library.papers import every_paper
from chat.library.researchers import researcher_path
from chat.service.routes.deps import ServicesDep
from chat.service.web.address import site_address
from chat.service.web.shared_pages import SharedPages, SharedPagesDep
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


# Where the site's address goes in a kept document, put in per request: no escaped path holds
# a brace.
_SITE: Final = "{site}"


def _kind_files(catalog: Catalog, kind: str) -> list[list[Entry]]:
    return sitemap_files(KINDS[kind](catalog))


def most_files(catalog: Catalog, kind: str) -> int:
    """At most how many files a kind's pages take, read without making a page: papers by
    their count, researchers by the name keys ever indexed; categories and institutions
    fit in one."""
    counted = {"papers": "papers", "researchers": "researcher_ids"}.get(kind)
    if counted is None:
        return 1
    total = int(catalog.db.execute(f"SELECT COUNT(*) FROM {counted}").fetchone()[0])
    return max(1, -(-total // SITEMAP_URLS))


def _xml(root: ElementTree.Element) -> bytes:
    body: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return body


def _document(kept: bytes, request: Request, services: ServicesDep) -> Response:
    site = escape(site_address(request, services.settings)).encode()
    return Response(kept.replace(_SITE.encode(), site), media_type=XML_TYPE)


async def _files(pages: SharedPages, catalog: Catalog, kind: str) -> tuple[int, list[list[Entry]]]:
    """A kind's files, with the catalog generation they were made at."""
    return await pages.made_at(("sitemap files", kind), partial(_kind_files, catalog, kind))


@router.get(SITEMAP_PATH, include_in_schema=False)
async def sitemap(request: Request, services: ServicesDep, pages: SharedPagesDep) -> Response:
    """The sitemap index: the files that list every paper, category, researcher and
    institution page. Made once for every visitor while the catalog stays as it is."""
    catalog = services.index.catalog
    made = {kind: await _files(pages, catalog, kind) for kind in KINDS}
    files = {kind: parts for kind, (_, parts) in made.items()}
    key = ("sitemap index", *(generation for generation, _ in made.values()))
    kept = await pages.get(key, lambda: _xml(sitemap_index(files, _SITE)))
    return _document(kept, request, services)


@router.get("/sitemaps/{kind}-{number:int}.xml", include_in_schema=False)
async def pages_sitemap(
    kind: str, number: int, request: Request, services: ServicesDep, pages: SharedPagesDep
) -> Response:
    """One sitemap file: its pages, each with the day it last changed when known. A number
    past what the kind's pages could fill is a 404 before anything is made."""
    catalog = services.index.catalog
    missing = Response(f"no sitemap file {kind}-{number}", 404, media_type="text/plain")
    if kind not in KINDS or number < 1:
        return missing
    if number > await pages.get(("sitemap bound", kind), partial(most_files, catalog, kind)):
        return missing
    generation, files = await _files(pages, catalog, kind)
    if number > len(files) or (not files[0] and kind != "papers"):
        return missing
    entries = files[number - 1]
    key = ("sitemap", kind, number, generation)
    kept = await pages.get(key, lambda: _xml(url_set(entries, _SITE)))
    return _document(kept, request, services)


@router.get("/robots.txt", include_in_schema=False)
def robots(request: Request, services: ServicesDep) -> Response:
    """Pages are open to crawlers, the APIs are not; names the sitemap."""
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in _NOT_PAGES), "Allow: /"]
    lines += ["", f"Sitemap: {site_address(request, services.settings)}{SITEMAP_PATH}"]
    return Response("\n".join(lines) + "\n", media_type="text/plain")
