"""Where a chunk's text lies on its PDF pages: the boxes that highlight it.

The body stage changes a page's text on its way into a chunk (it joins
hyphenated words, expands ligatures, reflows white space, drops page
furniture and debris), so a chunk is looked for on its pages by its letters
and digits alone, in pieces (`ingest.pdf.alignment`), never across a page
break. The characters found become pdfium's rectangles, merged per line, as
fractions of the page's size from its top left corner.

This reads the PDF with PDFium: at ingest it runs in a worker process of its
own (`locate_chunks`), as the parser does.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.index.records import Box
from ingest.pdf.alignment import MIN_COVERAGE, Haystack, keys_of, spans

# Device size the page's coordinates are mapped to: fractions to five places.
_DEVICE = 100_000
# Lines compared when merging rectangles (two columns, a formula, a footnote mark).
_RECENT_LINES = 4
# A rectangle taller than this share of the page is a figure or a stray glyph, not a line.
_MAX_LINE_HEIGHT = 0.08


@dataclass(frozen=True)
class Found:
    """A chunk's boxes and how much of its text was found on its pages (0 to 1)."""

    boxes: tuple[Box, ...]
    coverage: float


CharRange = tuple[int, int, int]  # (page, first character index, count)
ChunkPlace = tuple[str, int, int]  # (text, first page, last page)


@dataclass
class _Page:
    number: int
    start: int  # where the page's keys begin in the document's keys
    where: list[int]  # each key's character index on the page


def page_text(textpage: pdfium.PdfTextPage) -> str:
    """The page's text with one character per pdfium character index, every character one
    that can be written out (UTF-8, JSON): see `one_per_index`."""
    count = textpage.count_chars()
    text = str(textpage.get_text_range()) if count else ""
    if len(text) == count and not any(ord(c) in _HIGH or ord(c) in _LOW for c in text):
        return text
    handle = textpage.raw
    return one_per_index([pdfium_c.FPDFText_GetUnicode(handle, i) for i in range(count)])


# UTF-16's surrogate code units: a high one then a low one are one character beyond U+FFFF.
_HIGH = range(0xD800, 0xDC00)
_LOW = range(0xDC00, 0xE000)
# Stands in the place of a pair's second half: invisible, and neither a letter nor a digit,
# so it is passed over wherever text is matched by its letters.
PAIR_FILLER = "\u2060"


def one_per_index(units: Sequence[int]) -> str:
    """PDFium's characters (UTF-16 code units, one per character index) as text with one
    character per index. A character beyond U+FFFF (U+1D465, italic x, say) takes two
    indexes: it stands at the first, `PAIR_FILLER` at the second. A surrogate without its
    other half, or no character at all, is U+FFFD: text that cannot be written out never
    leaves here."""
    out: list[str] = []
    i = 0
    while i < len(units):
        unit = units[i] or 0xFFFD
        following = units[i + 1] if i + 1 < len(units) else 0
        if unit in _HIGH and following in _LOW:
            pair = (chr(unit) + chr(following)).encode("utf-16-le", "surrogatepass")
            out += [pair.decode("utf-16-le"), PAIR_FILLER]
            i += 2
            continue
        out.append("\ufffd" if unit in _HIGH or unit in _LOW else chr(unit))
        i += 1
    return "".join(out)


class PdfText:
    """The letters and digits of every page of one open document, searchable."""

    def __init__(self, document: pdfium.PdfDocument) -> None:
        self.document = document
        self.pages: list[_Page] = []
        self._open: list[tuple[pdfium.PdfPage, pdfium.PdfTextPage]] = []
        parts: list[str] = []
        offset = 0
        try:
            for index in range(len(document)):
                page = document[index]
                textpage = page.get_textpage()
                self._open.append((page, textpage))
                keys, where = keys_of(page_text(textpage))
                self.pages.append(_Page(index + 1, offset, where))
                parts.append(keys)
                offset += len(keys)
        except BaseException:
            self.close()
            raise
        self.haystack = Haystack("".join(parts))

    def close(self) -> None:
        """Close the pages kept open for their rectangles (the document stays open)."""
        for page, textpage in self._open:
            textpage.close()
            page.close()
        self._open.clear()

    def _range(self, first: int, last: int) -> tuple[int, int]:
        first = max(1, first)
        last = min(len(self.pages), last)
        if first > last:
            return 0, 0
        end = self.pages[last].start if last < len(self.pages) else len(self.haystack.keys)
        return self.pages[first - 1].start, end

    def find(self, text: str, page_start: int, page_end: int) -> tuple[list[CharRange], float]:
        """Where a chunk said to lie on pages `page_start` to `page_end` (1-based) is, as
        (page, first character index, count) ranges, and the share of it found; a page
        either side is searched too when too little is found on them."""
        needle, _ = keys_of(text)
        if not needle or page_start < 1:
            return [], 0.0
        best: list[tuple[int, int, int]] = []
        for widen in (0, 1):
            low, high = self._range(page_start - widen, page_end + widen)
            pieces = self.haystack.pieces(needle, low, high)
            if sum(n for *_, n in pieces) > sum(n for *_, n in best):
                best = pieces
            if sum(n for *_, n in best) >= len(needle) * 0.8:
                break
        coverage = round(sum(n for *_, n in best) / len(needle), 3)
        if coverage < MIN_COVERAGE:
            return [], coverage
        breaks = [page.start for page in self.pages]
        ranges = [r for s, e in spans(best, breaks) for r in self._page_ranges(s, e)]
        return ranges, coverage

    def locate(self, text: str, page_start: int, page_end: int) -> Found:
        """The boxes of one chunk (`locate_all` reads each page once for many)."""
        return self.locate_all([(text, page_start, page_end)])[0]

    def locate_all(self, chunks: Sequence[ChunkPlace]) -> list[Found]:
        """The boxes of every chunk, each page's rectangles read once for all of them."""
        found = [self.find(text, first, last) for text, first, last in chunks]
        wanted: dict[int, list[tuple[int, int]]] = {}
        for ranges, _ in found:
            for page, first, count in ranges:
                wanted.setdefault(page, []).append((first, count))
        boxes: dict[tuple[int, int, int], list[Box]] = {}
        for page, asked in wanted.items():
            unique = list(dict.fromkeys(asked))
            pdf_page, textpage = self._open[page - 1]
            for (first, count), got in zip(
                unique, _range_boxes(pdf_page, textpage, page, unique), strict=True
            ):
                boxes[(page, first, count)] = got
        return [
            Found(tuple(box for r in ranges for box in boxes[r]), coverage)
            for ranges, coverage in found
        ]

    def _page_ranges(self, start: int, end: int) -> Iterator[CharRange]:
        """The document's keys `start:end` as (page, first char index, count) per page."""
        for page in self.pages:
            low = max(start, page.start)
            high = min(end, page.start + len(page.where))
            if low < high:
                first = page.where[low - page.start]
                yield page.number, first, page.where[high - 1 - page.start] - first + 1


def char_range_boxes(
    document: pdfium.PdfDocument, number: int, ranges: Sequence[tuple[int, int]]
) -> list[list[Box]]:
    """For each (first character index, count) on page `number`, its boxes merged per line."""
    page = document[number - 1]
    textpage = page.get_textpage()
    try:
        return _range_boxes(page, textpage, number, ranges)
    finally:
        textpage.close()
        page.close()


def _range_boxes(
    page: pdfium.PdfPage,
    textpage: pdfium.PdfTextPage,
    number: int,
    ranges: Sequence[tuple[int, int]],
) -> list[list[Box]]:
    return [
        [Box(number, *rect) for rect in merge_lines(_rects(page, textpage, first, count))]
        for first, count in ranges
    ]


Rect = tuple[float, float, float, float]


def _rects(
    page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, first: int, count: int
) -> list[Rect]:
    handle = textpage.raw
    n = pdfium_c.FPDFText_CountRects(handle, first, count)
    left, top, right, bottom = (ctypes.c_double() for _ in range(4))
    rects: list[Rect] = []
    for index in range(max(n, 0)):
        if not pdfium_c.FPDFText_GetRect(handle, index, left, top, right, bottom):
            continue
        x0, y0 = _to_fraction(page, left.value, top.value)
        x1, y1 = _to_fraction(page, right.value, bottom.value)
        x0, x1 = min(x0, x1), max(x0, x1)
        y0, y1 = min(y0, y1), max(y0, y1)
        if x1 - x0 > 0 and 0 < y1 - y0 <= _MAX_LINE_HEIGHT:
            rects.append((x0, y0, x1, y1))
    return rects


def _to_fraction(page: pdfium.PdfPage, x: float, y: float) -> tuple[float, float]:
    """A point of the page's space as fractions of the displayed page (crop box, rotation)."""
    device_x, device_y = ctypes.c_int(), ctypes.c_int()
    pdfium_c.FPDF_PageToDevice(
        page.raw, 0, 0, _DEVICE, _DEVICE, 0, x, y, ctypes.byref(device_x), ctypes.byref(device_y)
    )
    return _unit(device_x.value), _unit(device_y.value)


def _unit(device: int) -> float:
    return min(max(device / _DEVICE, 0.0), 1.0)


def merge_lines(rects: Sequence[Rect]) -> list[Rect]:
    """Rectangles that share a line (they overlap by half their height, no wide gap between
    them) as one, in reading order; a rectangle inside another is dropped."""
    merged: list[list[float]] = []
    for x0, y0, x1, y1 in sorted(rects, key=lambda r: (round(r[1], 3), r[0])):
        # Sorted by top: a line to join is among the last few, never far above.
        for line in merged[-_RECENT_LINES:]:
            overlap = min(line[3], y1) - max(line[1], y0)
            height = min(line[3] - line[1], y1 - y0)
            near = x0 <= line[2] + 0.03 and x1 >= line[0] - 0.03
            if height > 0 and overlap >= height / 2 and near:
                line[0], line[1] = min(line[0], x0), min(line[1], y0)
                line[2], line[3] = max(line[2], x1), max(line[3], y1)
                break
        else:
            merged.append([x0, y0, x1, y1])
    return [(round(a, 5), round(b, 5), round(c, 5), round(d, 5)) for a, b, c, d in merged]


def locate_chunks(item: tuple[str, Sequence[ChunkPlace]]) -> list[Found]:
    """Worker entry: for a PDF's path and its chunks, each chunk's boxes, in order."""
    path, chunks = item
    document = pdfium.PdfDocument(path)
    try:
        text = PdfText(document)
        try:
            return text.locate_all(chunks)
        finally:
            text.close()
    finally:
        document.close()
