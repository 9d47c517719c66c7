"""The site's internal links to papers point at their canonical `/papers/<id>-<slug>`: a walk
over the pages (search, paper, researcher, institution and category pages, their Markdown,
the feeds and the sitemap) in one run finds no link to a paper that answers a redirect."""

from __future__ import annotations

import re
from collections import deque
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from lxml import etree, html

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(900)

STARTS = (
    "/",
    "/?q=retrieval+augmented+generation",
    "/?q=question+answering&sort=newest",
    "/institutions",
    "/sitemap.xml",
    "/feeds/latest.atom",
)
# Pages walked for their links, at most this many of each kind (the first path segment).
WALKED_PER_KIND = 25
WALKED_KINDS = ("", "papers", "researchers", "institutions", "categories", "sitemaps", "feeds")
MARKDOWN_LINK = re.compile(r"\]\(<([^>]+)>\)")
_PAPER_PAGE = re.compile(r"^/papers/(?!.*/(?:bibtex|pages/)).+")


def links_of(response: httpx.Response) -> list[str]:
    """Every address a page, a feed, a sitemap or a Markdown page links to."""
    kind = response.headers.get("content-type", "")
    if kind.startswith("text/html"):
        tree = html.fromstring(response.content)
        return [
            str(link) for element, attribute, link, _ in tree.iterlinks() if attribute == "href"
        ]
    if "xml" in kind:
        root = etree.fromstring(response.content)
        found = [str(e.get("href")) for e in root.iter("{*}link") if e.get("href")]
        return found + [str(e.text) for e in root.iter("{*}loc") if e.text]
    if kind.startswith("text/markdown"):
        return MARKDOWN_LINK.findall(response.text)
    return []


def internal_path(link: str, base: str, page: str) -> str | None:
    """The path and query an internal link names; None for another site or a fragment."""
    absolute = urljoin(base + page, link)
    if not absolute.startswith(base + "/"):
        return None
    parts = urlsplit(absolute)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def kind_of(path: str) -> str:
    return path.split("?")[0].strip("/").split("/")[0]


class Walk:
    """The pages walked so far, and the status each paper link answered."""

    def __init__(self, client: httpx.Client, base: str) -> None:
        self.client, self.base = client, base
        self.queue = deque(STARTS)
        self.walked: set[str] = set()
        self.per_kind: dict[str, int] = {}
        self.checked: dict[str, int] = {}
        self.redirected: list[str] = []

    def run(self) -> None:
        while self.queue:
            path = self.queue.popleft()
            if path not in self.walked:
                self.walked.add(path)
                self.visit(path)

    def visit(self, path: str) -> None:
        responses = [self.client.get(path)]
        if kind_of(path) in {"papers", "researchers", "institutions", "categories"}:
            responses.append(self.client.get(path, headers={"Accept": "text/markdown"}))
        for response in responses:
            assert response.status_code == 200, path
            for link in links_of(response):
                target = internal_path(link, self.base, path)
                if target is not None:
                    self.follow(path, target)

    def follow(self, page: str, target: str) -> None:
        if _PAPER_PAGE.match(target) and target not in self.checked:
            self.checked[target] = self.client.get(target).status_code
            if self.checked[target] == 308:
                self.redirected.append(f"{page} links {target}")
        kind = kind_of(target)
        walk = kind in WALKED_KINDS and target not in self.walked and "/reports" not in target
        if walk and self.per_kind.get(kind, 0) < WALKED_PER_KIND:
            self.per_kind[kind] = self.per_kind.get(kind, 0) + 1
            self.queue.append(target)


def test_no_internal_link_to_a_paper_costs_a_redirect(api: Api) -> None:
    with api.client() as client:
        walk = Walk(client, api.base_url)
        walk.run()

    assert walk.redirected == []
    assert len(walk.checked) >= 50
    assert set(walk.checked.values()) == {200}
    walked_kinds = {kind_of(p) for p in walk.walked}
    assert {"papers", "researchers", "institutions", "categories", "feeds"} <= walked_kinds
