"""A small stand-in for arXiv (a `FakeServer`, see base.py): the export API's Atom feed, PDFs.

It answers `/api/query` (`id_list`, `search_query`, `start`, `max_results`) with
feeds in the export API's format, and `/pdf/<id><version>` with PDF bytes. It can
be told to answer the next requests with an error status or to stall; `requests`
holds every request with when it arrived and when its answer began.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ingest.index.records import InvalidPaperId, split_arxiv_id
from tests.fakes.base import FakeServer, Reply, Request

PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
NOT_A_PDF = b"<!DOCTYPE html><html><body>Please verify you are human</body></html>"

_FEED_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href={self_link} rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: {title}</title>
  <id>http://arxiv.org/api/3rAnd0mFe3dId</id>
  <updated>2022-06-01T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{total}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{start}</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{per_page}</opensearch:itemsPerPage>
"""

_ENTRY = """  <entry>
    <id>http://arxiv.org/abs/{id}</id>
    <updated>{updated}</updated>
    <published>{published}</published>
    <title>{title}</title>
    <summary>{summary}</summary>
{authors}{comment}    <link href="http://arxiv.org/abs/{id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/{id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term={primary} scheme="http://arxiv.org/schemas/atom"/>
{categories}  </entry>
"""

_ERROR_ENTRY = """  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_{id}</id>
    <title>Error</title>
    <summary>incorrect id format for {id}</summary>
    <updated>2022-06-01T00:00:00-04:00</updated>
    <link href="http://arxiv.org/api/errors#incorrect_id_format_for_{id}"
          rel="alternate" type="text/html"/>
    <author>
      <name>arXiv api core</name>
    </author>
  </entry>
"""


@dataclass(frozen=True)
class FakePaper:
    id: str  # without version
    version: str = "v1"
    title: str = "A Paper"
    summary: str = "What the paper is about."
    authors: tuple[str, ...] = ("Ada Lovelace",)
    primary_category: str = "cs.CL"
    categories: tuple[str, ...] = ("cs.CL",)
    published: str = "2022-03-23T16:56:21Z"
    updated: str = "2022-03-23T16:56:21Z"
    comment: str = ""


@dataclass(frozen=True)
class _Scripted:
    status: int
    retry_after: str | None = None
    stall: float = 0.0


def entry_xml(paper: FakePaper, version: str | None = None) -> str:
    full_id = paper.id + (version or paper.version)
    authors = "".join(
        f"    <author>\n      <name>{escape(a)}</name>\n    </author>\n" for a in paper.authors
    )
    comment = (
        f'    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">{escape(paper.comment)}'
        "</arxiv:comment>\n"
        if paper.comment
        else ""
    )
    categories = "".join(
        f'    <category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>\n'
        for c in paper.categories
    )
    return _ENTRY.format(
        id=escape(full_id),
        updated=paper.updated,
        published=paper.published,
        title=escape(paper.title),
        summary=escape(paper.summary),
        authors=authors,
        comment=comment,
        primary=quoteattr(paper.primary_category),
        categories=categories,
    )


def feed_xml(entries: Iterable[str], *, query: str, total: int, start: int, per_page: int) -> bytes:
    head = _FEED_HEAD.format(
        self_link=quoteattr(f"http://arxiv.org/api/query?{query}"),
        title=escape(query),
        total=total,
        start=start,
        per_page=per_page,
    )
    return (head + "".join(entries) + "</feed>\n").encode()


class FakeArxiv(FakeServer):
    """Use as a context manager; `api_url` and `pdf_base_url` point a client at it."""

    def __init__(
        self,
        papers: Iterable[FakePaper] = (),
        *,
        rejected_ids: Iterable[str] = (),
        non_pdf_ids: Iterable[str] = (),
        pdf_bodies: Mapping[str, bytes] | None = None,
    ) -> None:
        super().__init__()
        self.papers = {paper.id: paper for paper in papers}
        self.pdf_bodies = dict(pdf_bodies or {})
        self.rejected_ids = frozenset(rejected_ids)
        self.non_pdf_ids = frozenset(non_pdf_ids)
        self._script: deque[_Scripted] = deque()

    @property
    def base_url(self) -> str:
        return self.origin

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/query"

    @property
    def pdf_base_url(self) -> str:
        return f"{self.base_url}/pdf/"

    def fail_next(self, times: int, *, status: int = 503, retry_after: str | None = None) -> None:
        """Answer the next `times` requests with `status` (and a Retry-After header if given)."""
        with self.lock:
            self._script.extend(_Scripted(status, retry_after) for _ in range(times))

    def stall_next(self, seconds: float) -> None:
        """Wait `seconds` (or until the client gives up) before answering the next request."""
        with self.lock:
            self._script.append(_Scripted(200, stall=seconds))

    def handle(self, request: Request, reply: Reply) -> None:
        with self.lock:
            scripted = self._script.popleft() if self._script else None
        if scripted is not None and scripted.stall:
            reply.wait(scripted.stall)
        if scripted is not None and scripted.status != 200:
            extra = {"Retry-After": scripted.retry_after} if scripted.retry_after else {}
            reply.send(scripted.status, b"slow down", "text/plain", extra)
            return
        status, content_type, content = self.answer(request.path, request.params)
        reply.send(status, content, content_type)

    def answer(self, path: str, params: dict[str, str]) -> tuple[int, str, bytes]:
        """Status, content type and body for a request (after any scripted failure)."""
        if path == "/api/query":
            return 200, "application/atom+xml; charset=utf-8", self._query(params)
        if path.startswith("/pdf/"):
            return self._pdf(path.removeprefix("/pdf/"))
        return 404, "text/plain", b"not found"

    def _query(self, params: dict[str, str]) -> bytes:
        start = int(params.get("start", "0"))
        per_page = int(params.get("max_results", "10"))
        query = "&".join(f"{key}={value}" for key, value in params.items())
        if params.get("id_list"):
            requested = params["id_list"].split(",")
            rejected = [r for r in requested if r in self.rejected_ids]
            if rejected:
                entries = [_ERROR_ENTRY.format(id=escape(rejected[0]))]
                return feed_xml(entries, query=query, total=1, start=0, per_page=1)
            entries = self._entries_for_ids(requested)
            return feed_xml(
                entries, query=query, total=len(entries), start=start, per_page=per_page
            )
        matches = [p for p in self.papers.values() if _matches(p, params.get("search_query", ""))]
        entries = [entry_xml(p) for p in matches[start : start + per_page]]
        return feed_xml(entries, query=query, total=len(matches), start=start, per_page=per_page)

    def _entries_for_ids(self, requested: list[str]) -> list[str]:
        entries = []
        for text in requested:
            paper_id, version = split_arxiv_id(text)
            if paper_id in self.papers:
                entries.append(entry_xml(self.papers[paper_id], version))
        return entries

    def _pdf(self, full_id: str) -> tuple[int, str, bytes]:
        try:
            paper_id, _ = split_arxiv_id(full_id)
        except InvalidPaperId:
            return 404, "text/plain", b"not found"
        if paper_id in self.non_pdf_ids:
            return 200, "text/html", NOT_A_PDF
        if paper_id in self.papers:
            return 200, "application/pdf", self.pdf_bodies.get(paper_id, PDF_BYTES)
        return 404, "text/plain", b"not found"


def _matches(paper: FakePaper, search_query: str) -> bool:
    """`cat:X` matches a category, `all:word` or `ti:word` a word of the title or summary."""
    field, _, value = search_query.partition(":")
    if field == "cat":
        return value in paper.categories
    if field in ("all", "ti", "abs"):
        return value.lower() in f"{paper.title} {paper.summary}".lower()
    return True
