"""The reader's routes: a paper's PDF pages as images and text layers, and where a cited
passage lies (its page and boxes, or its place in the abstract).

Public, like the paper pages they belong to. A page is only ever one of the
catalog's recorded PDFs (`chat.service.web.papers.pdfpages`); the renderer is one
at a time per process, so a crowd waiting for it gets 503 with `Retry-After`,
and each client address may have only so many pages rendered a minute (429).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request, Response, status
from pydantic import BaseModel

from chat.library.papers import PaperNotFound
from chat.service.access.ratelimit import over_limit
from chat.service.routes.deps import Services, ServicesDep, client_address
from chat.service.web.papers.annotations import PageAnnotations, PaperSkim
from chat.service.web.papers.focus import MAX_QUOTE_CHARS, focus
from chat.service.web.papers.pdfpages import (
    PageOutOfRange,
    Pdf,
    PdfUnavailable,
    ReaderBusy,
    RendersLimited,
    render_width,
)
from ingest.index.catalog import Catalog
from ingest.index.records import Box, normalise_paper_id
from ingest.index.tex import readable_paragraphs, readable_tex
from ingest.pdf.alignment import find_text

router = APIRouter(tags=["reader"])

MAX_WIDTH = 4000
_IMMUTABLE = "public, max-age=31536000, immutable"


RENDER_FAILURES = (PdfUnavailable, PageOutOfRange, ReaderBusy, RendersLimited)


def render_failure(error: Exception) -> HTTPException:
    if isinstance(error, ReaderBusy):
        detail = f"the reader is busy: {error}; retry in a moment"
        return HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, detail, {"Retry-After": "2"})
    if isinstance(error, RendersLimited):
        wait = {"Retry-After": str(error.retry_after_s)}
        return HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, str(error), wait)
    return HTTPException(status.HTTP_404_NOT_FOUND, str(error))


def render_check(request: Request, services: Services) -> Callable[[], None]:
    """Counts a page render (an image or text layer not in the cache) against the client
    address's `PAPERCHAT_PAGE_RENDER_RATE_LIMIT`; a cached page costs nothing."""

    def check() -> None:
        decision = services.render_limiter.hit(f"render:{client_address(request)}")
        if not decision.allowed:
            limit = f"{services.settings.page_render_rate_limit} per client"
            raise RendersLimited(
                over_limit("pages rendered", limit, decision), decision.retry_after_s
            )

    return check


@router.get("/papers/{paper_id:path}/pages/{page:int}.webp", include_in_schema=False)
def page_image(
    paper_id: str,
    page: int,
    request: Request,
    services: ServicesDep,
    width: Annotated[int, Query(ge=1, le=MAX_WIDTH)] = 960,
    v: Annotated[str, Query(max_length=64)] = "",
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """One page of the paper's PDF as WebP, about `width` pixels wide (rounded up to one of a
    few widths); 404 for a paper without a PDF here or a page it does not have."""
    check = render_check(request, services)
    try:
        body, version = services.pdf_pages.image(normalise_paper_id(paper_id), page, width, check)
    except RENDER_FAILURES as e:
        raise render_failure(e) from e
    etag = f'"{version}-{page}-{render_width(width)}"'
    headers = {
        "ETag": etag,
        "Cache-Control": _IMMUTABLE if v == version else "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Cross-Origin-Resource-Policy": "same-origin",
    }
    if if_none_match == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="image/webp", headers=headers)


class TextLine(BaseModel):
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


class TextLayer(BaseModel):
    page: int
    lines: list[TextLine]


@router.get("/papers/{paper_id:path}/pages/{page:int}.json", include_in_schema=False)
def page_text_layer(
    paper_id: str, page: int, request: Request, response: Response, services: ServicesDep
) -> Any:
    """The page's lines with their boxes (fractions of the page from its top left)."""
    check = render_check(request, services)
    try:
        layer = services.pdf_pages.text_layer(normalise_paper_id(paper_id), page, check)
    except RENDER_FAILURES as e:
        raise render_failure(e) from e
    response.headers["Cache-Control"] = "public, max-age=3600"
    return TextLayer.model_validate(layer)


@router.get("/papers/{paper_id:path}/pages/{page:int}/annotations", include_in_schema=False)
def page_annotations(
    paper_id: str, page: int, request: Request, response: Response, services: ServicesDep
) -> PageAnnotations:
    """What a reader may draw over a page of the paper's PDF: its citation marks, each with
    its boxes, the reference as the paper prints it and, when the library holds the cited
    paper, that paper; the terms the paper defines that the page uses, each with its
    definition, where it is defined and its boxes; the sentences of the library's papers
    citing this one that speak of this page; the sentences skimming tints. 404 for an
    unknown paper, a paper without a PDF here or a page it does not have."""
    check = render_check(request, services)
    try:
        found = services.annotations.page(normalise_paper_id(paper_id), page, check)
    except PaperNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
    except RENDER_FAILURES as e:
        raise render_failure(e) from e
    response.headers["Cache-Control"] = "public, max-age=3600"
    return found


@router.get("/papers/{paper_id:path}/skim", include_in_schema=False)
def paper_skim(
    paper_id: str, request: Request, response: Response, services: ServicesDep
) -> PaperSkim:
    """The sentences of the paper's PDF that state its goal, method, results and
    limitations, in reading order, each with its page: the reader's skim list (each page's
    annotations give their boxes). 404 for an unknown paper or one without a PDF here."""
    check = render_check(request, services)
    try:
        found = services.annotations.skim(normalise_paper_id(paper_id), check)
    except PaperNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
    except RENDER_FAILURES as e:
        raise render_failure(e) from e
    response.headers["Cache-Control"] = "public, max-age=3600"
    return found


class EvidenceBox(BaseModel):
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class Evidence(BaseModel):
    """Where a chunk is shown: a full-text chunk's page and boxes (null when the index did not
    record them), an abstract chunk's (paragraph, start, end) ranges in the page's abstract.
    Asked with the words an answer quoted from it, `focus` (boxes) or `focus_abstract`
    (ranges) is where those words are inside it (`chat.service.web.papers.focus`): empty when they
    were not found there, null when none were asked about."""

    chunk_id: str
    paper_id: str
    kind: str
    page: int | None
    boxes: list[EvidenceBox] | None
    abstract: list[tuple[int, int, int]] | None
    focus: list[EvidenceBox] | None = None
    focus_abstract: list[tuple[int, int, int]] | None = None


@router.get("/reader/evidence", include_in_schema=False)
def evidence(
    chunk: Annotated[str, Query(min_length=1, max_length=300)],
    request: Request,
    services: ServicesDep,
    quote: Annotated[str | None, Query(min_length=1, max_length=MAX_QUOTE_CHARS)] = None,
) -> Evidence:
    """Where a passage is shown, and with `quote` (words an answer quoted from it) where
    those words are inside it."""
    catalog = services.index.catalog
    row = catalog.chunk_rows([chunk]).get(chunk)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no passage {chunk!r} in the index")
    if row.kind == "abstract":
        ranges = abstract_ranges(catalog, row.paper_id, row.text)
        return Evidence(
            chunk_id=row.id, paper_id=row.paper_id, kind=row.kind, page=None, boxes=None,
            abstract=ranges,
            focus_abstract=None if quote is None else _within(
                abstract_ranges(catalog, row.paper_id, quote), ranges
            ),
        )  # fmt: skip
    boxes = catalog.chunk_boxes(row.id)
    marked = None
    if quote is not None and boxes:
        marked = focus_boxes(normalise_paper_id(row.paper_id), quote, boxes, request, services)
    return Evidence(
        chunk_id=row.id,
        paper_id=row.paper_id,
        kind=row.kind,
        page=row.page_start or None,
        boxes=None if boxes is None else [EvidenceBox.model_validate(b.as_json()) for b in boxes],
        abstract=None,
        focus=None if marked is None else [EvidenceBox.model_validate(b.as_json()) for b in marked],
    )


def focus_boxes(
    pdf: Pdf, quote: str, boxes: Sequence[Box], request: Request, services: Services
) -> list[Box]:
    """Where `quote` is inside a passage's `boxes` in the PDF: each page read counts as a
    render."""
    check = render_check(request, services)

    def page_boxes(
        page: int, ranges_of: Callable[[str], Sequence[tuple[int, int]]]
    ) -> list[list[Box]]:
        return services.pdf_pages.text_boxes(pdf, page, ranges_of, check)

    try:
        return focus(quote, boxes, page_boxes)
    except RENDER_FAILURES as e:
        raise render_failure(e) from e


def _within(
    ranges: list[tuple[int, int, int]], passage: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """The parts of `ranges` inside the passage's own ranges."""
    kept = []
    for paragraph, start, end in ranges:
        for other, low, high in passage:
            if other == paragraph and max(start, low) < min(end, high):
                kept.append((paragraph, max(start, low), min(end, high)))
    return kept


def abstract_ranges(catalog: Catalog, paper_id: str, text: str) -> list[tuple[int, int, int]]:
    """Where an abstract chunk's text lies in the paper page's abstract paragraphs, as
    (paragraph, start, end) character ranges of the paragraphs as shown."""
    paper = catalog.get_paper(paper_id)
    if paper is None:
        return []
    part = text.removeprefix(paper.title).strip()
    paragraphs = readable_paragraphs(paper.abstract)
    joined = "\n".join(paragraphs)
    spans, _coverage = find_text(readable_tex(part), joined)
    ranges: list[tuple[int, int, int]] = []
    offset = 0
    for number, paragraph in enumerate(paragraphs):
        end = offset + len(paragraph)
        for start, stop in spans:
            low, high = max(start, offset), min(stop, end)
            if low < high:
                ranges.append((number, low - offset, high - offset))
        offset = end + 1
    return ranges
