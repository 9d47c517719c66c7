"""`/sitemap.xml` and `/robots.txt`: every paper page for search engines, by the sitemap
protocol (sitemaps.org 0.9): a sitemap index naming files of at most `SITEMAP_URLS` pages
each (`/sitemaps/papers-1.xml`, ...), each page at its canonical address with the day of
its record's last change; robots.txt names the index.

Addresses are absolute, under `PAPERCHAT_PUBLIC_URL` when set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final
from urllib.parse import quote
from xml.etree import ElementTree

from fastapi import APIRouter, Request, Response

from chat.library.papers import Listed, every_paper, paper_path
from chat.service.routes.deps import ServicesDep
from chat.service.web.address import site_address

router = APIRouter(tags=["sitemap"])

SITEMAP_PATH: Final = "/sitemap.xml"
SITEMAP_NAMESPACE: Final = "http://www.sitemaps.org/schemas/sitemap/0.9"
# The protocol's bound on the URLs of one sitemap file.
SITEMAP_URLS: Final = 50_000
XML_TYPE: Final = "application/xml"
# What crawlers may skip: the JSON API, /v1 and MCP answer people signed in, not pages.
_NOT_PAGES: Final = ("/api/", "/v1/", "/mcp")


def sitemap_files(papers: Sequence[Listed], per_file: int = SITEMAP_URLS) -> list[list[Listed]]:
    """`papers` cut into the sitemap files, `per_file` each; one empty file for none."""
    return [list(papers[i : i + per_file]) for i in range(0, len(papers), per_file)] or [[]]


def _document(root: ElementTree.Element) -> Response:
    body = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, media_type=XML_TYPE)


def _element(parent: ElementTree.Element, name: str, text: str) -> None:
    ElementTree.SubElement(parent, name).text = text


def sitemap_index(files: Sequence[Sequence[Listed]], base: str) -> ElementTree.Element:
    root = ElementTree.Element("sitemapindex", xmlns=SITEMAP_NAMESPACE)
    for number, papers in enumerate(files, 1):
        sitemap = ElementTree.SubElement(root, "sitemap")
        _element(sitemap, "loc", f"{base}/sitemaps/papers-{number}.xml")
        changed = max((p.updated for p in papers), default="")
        if changed:
            _element(sitemap, "lastmod", changed)
    return root


def url_set(papers: Sequence[Listed], base: str) -> ElementTree.Element:
    root = ElementTree.Element("urlset", xmlns=SITEMAP_NAMESPACE)
    for paper in papers:
        url = ElementTree.SubElement(root, "url")
        _element(url, "loc", f"{base}{quote(paper_path(paper.id, paper.title, paper.is_arxiv))}")
        if paper.updated:
            _element(url, "lastmod", paper.updated)
    return root


@router.get(SITEMAP_PATH, include_in_schema=False)
def sitemap(request: Request, services: ServicesDep) -> Response:
    """The sitemap index: the files that list every paper page."""
    files = sitemap_files(list(every_paper(services.index.catalog)))
    return _document(sitemap_index(files, site_address(request, services.settings)))


@router.get("/sitemaps/papers-{number:int}.xml", include_in_schema=False)
def papers_sitemap(number: int, request: Request, services: ServicesDep) -> Response:
    """One sitemap file: its paper pages, each with the day its record last changed."""
    files = sitemap_files(list(every_paper(services.index.catalog)))
    if not 1 <= number <= len(files):
        return Response(f"no sitemap file {number}", status_code=404, media_type="text/plain")
    return _document(url_set(files[number - 1], site_address(request, services.settings)))


@router.get("/robots.txt", include_in_schema=False)
def robots(request: Request, services: ServicesDep) -> Response:
    """Pages are open to crawlers, the APIs are not; names the sitemap."""
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in _NOT_PAGES), "Allow: /"]
    lines += ["", f"Sitemap: {site_address(request, services.settings)}{SITEMAP_PATH}"]
    return Response("\n".join(lines) + "\n", media_type="text/plain")
