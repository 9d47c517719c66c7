"""Parse one PDF file into page texts, metadata and cleaned blocks.

`parse_pdf` is meant to run inside a worker process (see `ingest.pdf.isolation`):
PDFium is a C library, and a hostile or broken file may crash or hang it.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.errors import PaperchatError
from ingest.index.records import ARXIV_ID_RE, ParsedPdf
from ingest.pdf.front.glyphs import read_lines
from ingest.pdf.front.header import read_header
from ingest.pdf.front.matter import drop_front_matter
from ingest.pdf.front.placements import front_matter
from ingest.pdf.layout.geometry import LayoutUnreadable, PageGeometry, read_page
from ingest.pdf.layout.sorting import lay_out
from ingest.pdf.text.cleaning import clean_pages

# `arXiv:1412.6980v9 [cs.LG] 30 Jan 2017`, as printed in the left margin of page 1.
STAMP_RE = re.compile(
    rf"arXiv:(?P<full>{ARXIV_ID_RE.pattern})\s*\[(?P<category>[a-z\-]+(?:\.[A-Za-z\-]+)?)\]"
    r"\s*\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}"
)
# Below this many non-space characters per page on average a PDF has no usable text layer.
MIN_CHARS_PER_PAGE = 100
# A dense page of a paper holds under 10,000 characters and a long book about 5 million:
# a file over these limits is built to exhaust the parser (or is no paper) and is refused.
MAX_PAGE_CHARS = 200_000
MAX_DOCUMENT_CHARS = 10_000_000
# Lines at the top of page 1 that are set large but are no title.
_NOT_TITLE_RE = re.compile(
    r"^(published|accepted|appeared|appearing|to appear|under review|preprint|proceedings"
    r"|workshop|in proceedings|arxiv|technical report|draft|journal of|ieee transactions)",
    re.I,
)
_ENDS_TITLE_AREA_RE = re.compile(r"@|^abstract\b", re.I)
_TITLE_LINES_SEARCHED = 30
_TITLE_CHARS_SEARCHED = 3000
_TITLE_SIZE_TOLERANCE = 0.6


class PdfError(PaperchatError):
    """A file that cannot be turned into text: empty, not a PDF, broken, locked or scanned."""


@dataclass(frozen=True)
class _Line:
    text: str
    size: float


def parse_pdf(path: str) -> ParsedPdf:
    """Read `path` and return its text as blocks, with metadata and the arXiv stamp."""
    data = _read_pdf_bytes(path)
    document = _open(path, data)
    try:
        pages = _pages(path, document)
        title_lines = _first_page_lines(document) if pages else []
        header_lines = read_lines(document) if pages else []
        metadata = document.get_metadata_dict(skip_empty=True)
    except pdfium.PdfiumError as e:  # a page the document lists but cannot give
        raise PdfError(f"cannot parse {path!r}: corrupt PDF ({e})") from e
    finally:
        document.close()
    _require_text_layer(path, [page.text for page in pages])
    stamp = STAMP_RE.search(pages[0].text)
    dates = (metadata.get("CreationDate", ""), metadata.get("ModDate", ""))
    header = read_header(header_lines, stamp.group(0) if stamp else "", dates)
    layouts = lay_out([page.geometry for page in pages])
    texts = [
        page.text if layout is None else "\n".join(layout.body)
        for page, layout in zip(pages, layouts, strict=True)
    ]
    extras = [extra for layout in layouts if layout is not None for extra in layout.extras]
    blocks, cleaned = clean_pages(texts, stamp=stamp.group(0) if stamp else "", extras=extras)
    stats = Counter(cleaned)
    blocks = drop_front_matter(blocks, header, stats)
    for layout in layouts:
        for reason, count in layout.dropped.items() if layout is not None else ():
            stats[reason] += count
    stats["pages_fallback"] = sum(layout is None for layout in layouts)
    return ParsedPdf(
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        page_count=len(pages),
        blocks=tuple(blocks),
        stamp_id=stamp["id"] if stamp else "",
        stamp_version=(stamp["version"] or "") if stamp else "",
        stamp_category=stamp["category"] if stamp else "",
        metadata_title=_clean_field(metadata.get("Title", "")),
        metadata_authors=_clean_field(metadata.get("Author", "")),
        first_page_title=guess_title(title_lines),
        first_page_text=pages[0].text,
        header=header,
        stats=dict(stats),
        front_lines=tuple(front_matter(header_lines)),
    )


def _read_pdf_bytes(path: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise PdfError(f"cannot read {path!r}: {e.strerror or e}") from e
    if not data:
        raise PdfError(f"cannot parse {path!r}: the file is empty (0 bytes)")
    if b"%PDF-" not in data[:1024]:
        raise PdfError(f"cannot parse {path!r}: not a PDF (no %PDF- header)")
    if b"%%EOF" not in data[-2048:]:
        raise PdfError(f"cannot parse {path!r}: truncated (no %%EOF marker at the end)")
    return data


def _open(path: str, data: bytes) -> pdfium.PdfDocument:
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        if "password" in str(e).lower():
            raise PdfError(f"cannot parse {path!r}: encrypted (a password is required)") from e
        raise PdfError(f"cannot parse {path!r}: corrupt PDF ({e})") from e
    if len(document) == 0:
        document.close()
        raise PdfError(f"cannot parse {path!r}: the PDF has no pages")
    return document


@dataclass(frozen=True)
class _Page:
    text: str  # PDFium's plain text, what a page without a readable layout is read as
    geometry: PageGeometry | None


def _pages(path: str, document: pdfium.PdfDocument) -> list[_Page]:
    """Every page's text and layout; refuses a page or a document with more text than a paper."""
    pages: list[_Page] = []
    total = 0
    for index in range(len(document)):
        pages.append(_page(path, document, index))
        total += len(pages[-1].text)
        if total > MAX_DOCUMENT_CHARS:
            raise PdfError(
                f"cannot parse {path!r}: over {MAX_DOCUMENT_CHARS} characters of text"
                f" by page {index + 1}, more than any paper"
            )
    return pages


def _page(path: str, document: pdfium.PdfDocument, index: int) -> _Page:
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            chars = textpage.count_chars()
            if chars > MAX_PAGE_CHARS:
                raise PdfError(
                    f"cannot parse {path!r}: page {index + 1} holds {chars} characters,"
                    f" over the limit of {MAX_PAGE_CHARS} per page"
                )
            text = str(textpage.get_text_range())
            try:
                geometry: PageGeometry | None = read_page(page, textpage)
            except LayoutUnreadable:
                geometry = None
            if geometry is not None and not geometry.lines and text.strip():
                geometry = None
            return _Page(text, geometry)
        finally:
            textpage.close()
    finally:
        page.close()


def _require_text_layer(path: str, texts: list[str]) -> None:
    chars = sum(len("".join(text.split())) for text in texts)
    if chars < MIN_CHARS_PER_PAGE * len(texts):
        raise PdfError(
            f"cannot parse {path!r}: no text layer ({chars} characters on {len(texts)} pages;"
            " a scanned or image-only PDF)"
        )


def _clean_field(value: str) -> str:
    return " ".join(value.replace("\x00", "").split())


def _first_page_lines(document: pdfium.PdfDocument) -> list[_Line]:
    """The first lines of page 1 with the largest font size of each."""
    page = document[0]
    textpage = page.get_textpage()
    try:
        handle = textpage.raw
        count = min(pdfium_c.FPDFText_CountChars(handle), _TITLE_CHARS_SEARCHED)
        lines: list[_Line] = []
        chars: list[str] = []
        size = 0.0
        box = pdfium_c.FS_RECTF()
        for index in range(count):
            char = chr(pdfium_c.FPDFText_GetUnicode(handle, index))
            if char in "\r\n":
                if chars:
                    lines.append(_Line("".join(chars).strip(), size))
                chars, size = [], 0.0
                continue
            chars.append(char)
            # The loose box is as tall as the font at its rendered size; the font size
            # reported for a character ignores the text matrix and is 1.0 in some PDFs.
            if not char.isspace() and pdfium_c.FPDFText_GetLooseCharBox(handle, index, box):
                size = max(size, float(box.top - box.bottom))
        if chars:
            lines.append(_Line("".join(chars).strip(), size))
        return lines
    finally:
        textpage.close()
        page.close()


def guess_title(lines: list[_Line]) -> str:
    """Join the largest-font run of lines above the authors' e-mails and the abstract."""
    top = lines[:_TITLE_LINES_SEARCHED]
    end = next((i for i, line in enumerate(top) if _ENDS_TITLE_AREA_RE.search(line.text)), len(top))
    candidates = [(index, line) for index, line in enumerate(top[:end]) if _may_be_title(line.text)]
    if not candidates:
        return ""
    biggest = max(line.size for _, line in candidates)
    start = next(index for index, line in candidates if line.size >= biggest)
    parts: list[str] = []
    for line in lines[start : start + 4]:
        if abs(line.size - biggest) > _TITLE_SIZE_TOLERANCE or not _may_be_title(line.text):
            break
        parts.append(line.text)
    return _join_title(parts)


def _may_be_title(text: str) -> bool:
    letters = sum(char.isalpha() for char in text)
    return letters >= 3 and not _NOT_TITLE_RE.match(text) and STAMP_RE.search(text) is None


def _join_title(parts: list[str]) -> str:
    title = ""
    for part in parts:
        if title.endswith("\ufffe"):
            title = title[:-1] + part
        elif title.endswith("-"):
            title += part
        else:
            title = f"{title} {part}" if title else part
    return " ".join(title.replace("\ufffe", "").split())
