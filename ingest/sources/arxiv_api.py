"""A polite client for arXiv's export API: paper metadata from its Atom feed, and PDFs.

arXiv asks API users to make one request at a time, no more than one every three
seconds, and to back off when told to. Every request of an `ArxivClient` passes
through one gate that enforces this. `harvest` streams papers with their PDFs.
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import NamedTuple, Self

import httpx

from ingest.index.records import InvalidPaperId, Paper, split_arxiv_id
from ingest.private import private_dir
from ingest.sources.arxiv_feed import ArxivApiError, FeedPage, parse_feed

DEFAULT_API_URL = "http://export.arxiv.org/api/query"
DEFAULT_PDF_BASE_URL = "https://arxiv.org/pdf"
# Seconds between two requests: arXiv asks for 3.
DEFAULT_INTERVAL_S = 3.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

QueryParams = Mapping[str, str | int]


class NotAPdfError(ArxivApiError):
    """A PDF download answered with something that is not a PDF."""


@dataclass(frozen=True)
class IdFailure:
    """An id that yielded no paper: malformed, rejected by arXiv, or unknown."""

    requested: str
    reason: str


class Harvested(NamedTuple):
    paper: Paper
    pdf_path: Path | None
    failure: str | None


@dataclass(frozen=True)
class _Retry:
    reason: str
    retry_after: float | None
    cause: Exception | None = None


def default_user_agent() -> str:
    try:
        version = metadata.version("paperchat")
    except metadata.PackageNotFoundError:
        version = "dev"
    return f"paperchat/{version} (+https://github.com/paperchat)"


class ArxivClient:
    """HTTP access to arXiv: one request at a time, spaced, retried with backoff."""

    def __init__(
        self,
        *,
        api_url: str = DEFAULT_API_URL,
        pdf_base_url: str = DEFAULT_PDF_BASE_URL,
        interval: float = DEFAULT_INTERVAL_S,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff: float = 3.0,
        max_wait: float = 300.0,
        user_agent: str | None = None,
    ) -> None:
        self.api_url = api_url
        self.pdf_base_url = pdf_base_url
        self.interval = interval
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_wait = max_wait
        headers = {"User-Agent": user_agent or default_user_agent()}
        self._http = httpx.Client(headers=headers, timeout=timeout, follow_redirects=True)
        self._gate = threading.Lock()
        self._next_start = 0.0  # time.monotonic() before which no request may start

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get(self, url: str, params: QueryParams | None = None) -> httpx.Response:
        """GET `url`, retrying 429, 5xx and connection errors; raise `ArxivApiError`."""
        full_url = str(httpx.URL(url, params=params))
        with self._gate:
            attempt = 0
            while True:
                self._wait_turn()
                outcome = self._attempt(full_url)
                if isinstance(outcome, httpx.Response):
                    return outcome
                attempt += 1
                if attempt > self.max_retries:
                    raise ArxivApiError(
                        f"gave up on {full_url} after {attempt} attempts: {outcome.reason}"
                    ) from outcome.cause
                delay = outcome.retry_after
                if delay is None:
                    delay = self.backoff * 2 ** (attempt - 1)
                self._defer(delay, full_url)

    def query(self, params: QueryParams) -> FeedPage:
        response = self.get(self.api_url, params)
        return parse_feed(response.content, str(response.url))

    def pdf_url(self, paper: Paper) -> str:
        return f"{self.pdf_base_url.rstrip('/')}/{paper.id}{paper.version}"

    def _attempt(self, url: str) -> httpx.Response | _Retry:
        try:
            response = self._http.get(url)
        except (httpx.UnsupportedProtocol, httpx.TooManyRedirects) as e:
            raise ArxivApiError(f"cannot request {url}: {e}") from e
        except httpx.TransportError as e:
            return _Retry(f"{type(e).__name__}: {e}", None, e)
        finally:
            self._next_start = time.monotonic() + self.interval
        status = response.status_code
        if status in RETRY_STATUSES:
            return _Retry(f"HTTP {status}", _retry_after(response.headers.get("Retry-After")))
        if response.is_error:
            raise ArxivApiError(f"{url} answered HTTP {status} {response.reason_phrase}")
        return response

    def _defer(self, delay: float, url: str) -> None:
        if delay > self.max_wait:
            raise ArxivApiError(
                f"{url} asks to wait {delay:.0f} s, longer than the {self.max_wait:.0f} s allowed"
            )
        self._next_start = max(self._next_start, time.monotonic() + delay)

    def _wait_turn(self) -> None:
        pause = self._next_start - time.monotonic()
        if pause > 0:
            time.sleep(pause)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date); None if absent or odd."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def fetch_by_ids(
    client: ArxivClient, ids: Iterable[str], *, batch_size: int = 50
) -> Iterator[Paper | IdFailure]:
    """Papers for `ids` (with or without version), or why there is none for an id."""
    wanted: list[str] = []
    for text in dict.fromkeys(text.strip() for text in ids):
        try:
            paper_id, version = split_arxiv_id(text)
        except InvalidPaperId as e:
            yield IdFailure(text, str(e))
            continue
        wanted.append(paper_id + (version or ""))
    for start in range(0, len(wanted), batch_size):
        yield from _fetch_batch(client, wanted[start : start + batch_size])


def _fetch_batch(client: ArxivClient, batch: list[str]) -> Iterator[Paper | IdFailure]:
    pending = batch
    while pending:
        page = client.query({"id_list": ",".join(pending), "max_results": len(pending)})
        found = {key: p for p in page.papers for key in (p.id, p.id + p.version)}
        rejected = {r: e for r in pending for e in page.errors if r in e.replace("_", " ").split()}
        leftover: list[str] = []
        for requested in pending:
            paper = found.get(requested) or found.get(split_arxiv_id(requested)[0])
            if requested in rejected:
                yield IdFailure(requested, f"arXiv rejected {requested!r}: {rejected[requested]}")
            elif paper is not None:
                yield paper
            else:
                leftover.append(requested)
        if rejected:
            pending = leftover  # arXiv answers a rejected id alone: ask again for the rest
            continue
        reason = f"arXiv rejected the request: {page.errors[0]}" if page.errors else None
        for requested in leftover:
            yield IdFailure(requested, reason or f"no paper {requested!r} on arXiv")
        return


def search(
    client: ArxivClient, query: str, max_results: int, *, page_size: int = 100
) -> Iterator[Paper]:
    """Up to `max_results` papers matching `query` (arXiv search syntax), page by page."""
    start = 0
    while start < max_results:
        wanted = min(page_size, max_results - start)
        params: QueryParams = {"search_query": query, "start": start, "max_results": wanted}
        page = client.query(params)
        if page.errors:
            raise ArxivApiError(f"arXiv rejected the query {query!r}: {page.errors[0]}")
        yield from page.papers
        start += page.entry_count
        total = page.total_results
        if page.entry_count < wanted or (total is not None and start >= total):
            return


def pdf_filename(paper: Paper) -> str:
    return f"{paper.id.replace('/', '_')}{paper.version}.pdf"


def download_pdf(client: ArxivClient, paper: Paper, pdf_dir: Path) -> Path:
    """Save the paper's PDF in `pdf_dir` (kept if already there); raise `ArxivApiError`."""
    target = pdf_dir / pdf_filename(paper)
    if target.is_file() and _starts_like_pdf(target):
        return target
    url = client.pdf_url(paper)
    body = client.get(url).content
    if not body.startswith(b"%PDF"):
        raise NotAPdfError(f"{url} did not answer with a PDF: it starts with {body[:16]!r}")
    private_dir(pdf_dir)
    partial = target.with_name(target.name + ".part")
    partial.write_bytes(body)
    partial.replace(target)
    return target


def _starts_like_pdf(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(4) == b"%PDF"


def harvest(
    client: ArxivClient,
    *,
    ids: Iterable[str] | None = None,
    query: str | None = None,
    max_results: int = 100,
    pdf_dir: Path | None = None,
) -> Iterator[Harvested]:
    """Stream `(paper, pdf_path, failure)` for `ids` or a `query`, with PDFs if `pdf_dir`.

    A failed id comes as a placeholder paper (its id, no title) with the reason.
    A failed PDF comes as the paper, no path, and the reason. A failing API
    request raises `ArxivApiError`.
    """
    if (ids is None) == (query is None):
        raise ValueError("harvest needs either ids or a query, not both")
    found = (
        fetch_by_ids(client, ids) if ids is not None else search(client, query or "", max_results)
    )
    for item in found:
        if isinstance(item, IdFailure):
            yield Harvested(_placeholder(item.requested), None, item.reason)
            continue
        if pdf_dir is None:
            yield Harvested(item, None, None)
            continue
        try:
            pdf_path = download_pdf(client, item, pdf_dir)
        except ArxivApiError as e:
            yield Harvested(item, None, str(e))
            continue
        yield Harvested(item, pdf_path, None)


def _placeholder(requested: str) -> Paper:
    try:
        paper_id, version = split_arxiv_id(requested)
    except InvalidPaperId:
        return Paper(id=requested, title="")
    return Paper(id=paper_id, title="", version=version or "")
