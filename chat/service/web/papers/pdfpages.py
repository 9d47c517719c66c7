"""The PDFs the catalog records, page by page, for the reader: images and text layers.

Only a file the catalog recorded for a paper is ever opened, or a user's upload
(`PdfFile`, given by the route that found its owner), never a path
from a request: the copy in the PDF store named by the SHA-256 the catalog
recorded (`ingest/pdf/store.py`, shared by every node), else, for an index
built before the store, the path ingest read it from, and only while its
SHA-256 is still the one ingest read (a file replaced since is not shown).
PDFium may not be called from two threads at once, so one lock covers every
call; at most `MAX_WAITING` requests wait for it, for `WAIT_S` at most, and
the rest are told to come back (`ReaderBusy`). Page images are WebP at one
of a few widths (a request's width is rounded up to the next), their pixels
capped, and kept in a cache bounded in bytes; text layers are kept beside
them.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pypdfium2 as pdfium

from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.records import Box
from ingest.pdf.positions import char_range_boxes, page_text
from ingest.pdf.store import PdfStore

WIDTHS: Final = (480, 720, 960, 1280, 1600, 2000)
MAX_PIXELS: Final = 2000 * 2800
CACHE_BYTES: Final = 96 * 1024 * 1024
OPEN_DOCUMENTS: Final = 4
MAX_WAITING: Final = 8
WAIT_S: Final = 10.0
WEBP_QUALITY: Final = 82
TEXT_LAYERS: Final = 512
# Papers whose every page's text is kept (a long paper's is about a megabyte).
PAPER_TEXTS: Final = 8


class PdfUnavailable(PaperchatError, LookupError):
    """The paper has no PDF on this server (none ingested, moved, or changed since)."""


class PageOutOfRange(PaperchatError, LookupError):
    """A page number the PDF does not have."""


class ReaderBusy(PaperchatError):
    """Too many page requests are waiting for the renderer."""


class RendersLimited(PaperchatError):
    """One client asked for more pages to be rendered than its limit allows."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def _no_check() -> None:
    return None


@dataclass(frozen=True)
class PdfFile:
    """A PDF the reader may show that no catalog records (a user's upload): opened only
    while its SHA-256 is `sha256`; `key` names it in the caches, apart from every paper."""

    key: str
    path: Path
    sha256: str


# A paper of the catalog, by its id, or a PDF given by its path.
Pdf = str | PdfFile


@dataclass(frozen=True)
class PdfInfo:
    """A paper's PDF as the reader shows it: each page's height over its width."""

    paper_id: str
    version: str  # the file's hash, short: in URLs, so a new file gets new URLs
    ratios: tuple[float, ...]

    @property
    def pages(self) -> int:
        return len(self.ratios)


class _Bytes(OrderedDict[tuple[Any, ...], bytes]):
    """Least recently used entries leave first once `limit` bytes are held."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.held = 0

    def get_fresh(self, key: tuple[Any, ...]) -> bytes | None:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def keep(self, key: tuple[Any, ...], value: bytes) -> None:
        if len(value) > self.limit or key in self:
            return
        self[key] = value
        self.held += len(value)
        while self.held > self.limit:
            _, old = self.popitem(last=False)
            self.held -= len(old)


def render_width(requested: int) -> int:
    """The image width served for a requested one: the next of `WIDTHS` (the largest past it)."""
    return next((w for w in WIDTHS if w >= requested), WIDTHS[-1])


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class PdfPages:
    def __init__(
        self,
        catalog: Callable[[], Catalog],
        cache_bytes: int = CACHE_BYTES,
        store: PdfStore | None = None,
    ) -> None:
        self._catalog = catalog  # opened when first needed
        self._store = store
        self._lock = threading.Lock()  # PDFium: one call at a time in this process
        self._waiting = threading.BoundedSemaphore(MAX_WAITING)
        self._documents: OrderedDict[str, pdfium.PdfDocument] = OrderedDict()
        self._verified: dict[str, tuple[int, int, str]] = {}  # path -> (size, mtime, sha256)
        self._infos: dict[str, PdfInfo] = {}
        self._cached = threading.Lock()  # guards the caches, which threads share
        self._images = _Bytes(cache_bytes)
        self._layers: OrderedDict[tuple[str, str, int], dict[str, Any]] = OrderedDict()
        self._texts: OrderedDict[tuple[str, str], tuple[str, ...]] = OrderedDict()

    def close(self) -> None:
        with self._lock:
            for document in self._documents.values():
                document.close()
            self._documents.clear()

    @contextmanager
    def _pdfium(self) -> Iterator[None]:
        if not self._waiting.acquire(blocking=False):
            raise ReaderBusy("too many page requests are waiting")
        try:
            if not self._lock.acquire(timeout=WAIT_S):
                raise ReaderBusy(f"no page could be rendered within {WAIT_S:g} s")
            try:
                yield
            finally:
                self._lock.release()
        finally:
            self._waiting.release()

    def _path(self, pdf: Pdf) -> tuple[Path, str]:
        """The PDF's file, checked to be the one ingest read or the upload kept; (path,
        sha256)."""
        if isinstance(pdf, PdfFile):
            return self._checked_file(pdf.key, pdf.path, pdf.sha256, "its upload"), pdf.sha256
        record = self._catalog().pdf_record(pdf)
        kept = self._store.find(record.sha256) if self._store and record else None
        if record is None or not (kept or record.path):
            raise PdfUnavailable(f"no PDF of {pdf!r} on this server")
        where = f"in the PDF store {str(self._store.root)!r}, nor " if self._store else ""
        where += f"at {record.path!r}"
        path = self._checked_file(pdf, kept or Path(record.path), record.sha256, where)
        return path, record.sha256

    def _checked_file(self, name: str, path: Path, sha256: str, where: str) -> Path:
        """`path`, once its SHA-256 is seen to be `sha256` (hashed again when it changed)."""
        try:
            stat = path.stat()
        except OSError as e:
            message = f"the PDF of {name!r} is no longer on this server ({where})"
            raise PdfUnavailable(message) from e
        seen = self._verified.get(str(path))
        if seen is None or seen[:2] != (stat.st_size, stat.st_mtime_ns):
            seen = (stat.st_size, stat.st_mtime_ns, _sha256(path))
            self._verified[str(path)] = seen
        if seen[2] != sha256:
            raise PdfUnavailable(f"the PDF of {name!r} changed since it was indexed")
        return path

    def _document(self, path: Path) -> pdfium.PdfDocument:
        """An open document (within the lock), kept among the last few opened."""
        key = str(path)
        document = self._documents.get(key)
        if document is not None:
            self._documents.move_to_end(key)
            return document
        try:
            document = pdfium.PdfDocument(os.fspath(path))
        except (OSError, pdfium.PdfiumError) as e:
            raise PdfUnavailable(f"cannot open the PDF {path.name!r}: {e}") from e
        self._documents[key] = document
        while len(self._documents) > OPEN_DOCUMENTS:
            _, old = self._documents.popitem(last=False)
            old.close()
        return document

    def info(self, pdf: Pdf) -> PdfInfo:
        path, sha256 = self._path(pdf)
        paper_id = _key(pdf)
        known = self._infos.get(paper_id)
        if known is not None and known.version == sha256[:16]:
            return known
        with self._pdfium():
            document = self._document(path)
            sizes = [document.get_page_size(i) for i in range(len(document))]
        ratios = tuple(round(h / w, 4) if w > 0 else 1.4142 for w, h in sizes)
        info = PdfInfo(paper_id, sha256[:16], ratios)
        self._infos[paper_id] = info
        return info

    def _checked(self, pdf: Pdf, page: int) -> tuple[Path, PdfInfo]:
        info = self.info(pdf)
        if not 1 <= page <= info.pages:
            raise PageOutOfRange(f"{_key(pdf)!r} has pages 1 to {info.pages}, not {page}")
        return self._path(pdf)[0], info

    def image(
        self, pdf: Pdf, page: int, width: int, before_render: Callable[[], None] = _no_check
    ) -> tuple[bytes, str]:
        """Page `page` (1-based) as WebP about `width` pixels wide; (image, its version).
        `before_render` runs when the image is not cached, before the page is rendered
        (it may raise `RendersLimited`)."""
        path, info = self._checked(pdf, page)
        width = render_width(width)
        key = (info.paper_id, info.version, page, width)
        with self._cached:
            cached = self._images.get_fresh(key)
        if cached is not None:
            return cached, info.version
        before_render()
        with self._pdfium():
            pdf_page = self._document(path)[page - 1]
            try:
                page_width, page_height = pdf_page.get_size()
                scale = width / max(page_width, 1.0)
                scale = min(scale, (MAX_PIXELS / max(page_width * page_height, 1.0)) ** 0.5)
                bitmap = pdf_page.render(scale=scale, may_draw_forms=False)
                image = bitmap.to_pil()
            finally:
                pdf_page.close()
        buffer = io.BytesIO()
        image.save(buffer, "WEBP", quality=WEBP_QUALITY, method=2)
        body = buffer.getvalue()
        with self._cached:
            self._images.keep(key, body)
        return body, info.version

    def text_layer(
        self, pdf: Pdf, page: int, before_render: Callable[[], None] = _no_check
    ) -> dict[str, Any]:
        """The page's lines of text with their boxes (fractions of the page), to select;
        `before_render` as for `image`, when the layer is not cached."""
        path, info = self._checked(pdf, page)
        key = (info.paper_id, info.version, page)
        with self._cached:
            cached = self._layers.get(key)
        if cached is not None:
            return cached
        before_render()
        with self._pdfium():
            document = self._document(path)
            lines = _lines(document, page)
        layer = {"page": page, "lines": lines}
        with self._cached:
            self._layers[key] = layer
            while len(self._layers) > TEXT_LAYERS:
                self._layers.popitem(last=False)
        return layer

    def page_texts(
        self, pdf: Pdf, before_render: Callable[[], None] = _no_check
    ) -> tuple[PdfInfo, tuple[str, ...]]:
        """Every page's text, one character a PDFium character index, and the PDF's info;
        `before_render` as for `image`, when the texts are not cached."""
        path, info = self._checked(pdf, 1)
        key = (info.paper_id, info.version)
        with self._cached:
            cached = self._texts.get(key)
        if cached is not None:
            return info, cached
        before_render()
        with self._pdfium():
            document = self._document(path)
            texts = tuple(_text(document, number) for number in range(1, info.pages + 1))
        with self._cached:
            self._texts[key] = texts
            while len(self._texts) > PAPER_TEXTS:
                self._texts.popitem(last=False)
        return info, texts

    def text_boxes(
        self,
        pdf: Pdf,
        page: int,
        ranges_of: Callable[[str], Sequence[tuple[int, int]]],
        before_render: Callable[[], None] = _no_check,
    ) -> list[list[Box]]:
        """The boxes of the character ranges `ranges_of` picks in the page's text, each
        range's merged per line; `before_render` as for `image` (the page is read)."""
        path, _ = self._checked(pdf, page)
        before_render()
        with self._pdfium():
            document = self._document(path)
            ranges = ranges_of(_text(document, page))
            return char_range_boxes(document, page, ranges) if ranges else []


def _key(pdf: Pdf) -> str:
    return pdf if isinstance(pdf, str) else pdf.key


def _text(document: pdfium.PdfDocument, number: int) -> str:
    """Page `number`'s text, one character a PDFium character index."""
    pdf_page = document[number - 1]
    textpage = pdf_page.get_textpage()
    try:
        return page_text(textpage)
    finally:
        textpage.close()
        pdf_page.close()


def _lines(document: pdfium.PdfDocument, number: int) -> list[dict[str, Any]]:
    """Each line pdfium sees on a page: its text and one box around it."""
    text = _text(document, number)
    pieces: list[tuple[int, str]] = []
    start = 0
    for end in [*(i for i, char in enumerate(text) if char == "\n"), len(text)]:
        piece = text[start:end].rstrip("\r")
        if piece.strip():
            pieces.append((start, piece))
        start = end + 1
    found = char_range_boxes(document, number, [(first, len(piece)) for first, piece in pieces])
    return [
        {
            "text": piece,
            "x0": min(b.x0 for b in boxes),
            "y0": min(b.y0 for b in boxes),
            "x1": max(b.x1 for b in boxes),
            "y1": max(b.y1 for b in boxes),
        }
        for (_, piece), boxes in zip(pieces, found, strict=True)
        if boxes
    ]
