"""Where a chunk's text lies on its PDF pages: the boxes that highlight it.

The body stage changes a page's text on its way into a chunk: it joins
hyphenated words, expands ligatures, reflows white space and drops page
furniture and debris. So a chunk is looked for on its pages by its letters
and digits alone (NFKC, case-folded), everything else left out on both sides,
and in pieces: from each point of the chunk, the longest run that also occurs
on its pages, wherever it is there (a passage the body stage moved is found
too). Short gaps between found pieces (a formula, a symbol spelled another
way) are highlighted with them; lone pieces too short to be told from chance
are not. The characters found become pdfium's rectangles, merged per line,
as fractions of the page's size from its top left corner.

This reads the PDF with PDFium: at ingest it runs in a worker process of its
own (`locate_chunks`), as the parser does.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.index.records import Box

# Letters and digits in a row that a piece must share with the page to count.
ANCHOR = 12
# Keys (letters and digits) between two found pieces that are highlighted with them.
GAP = 24
# A piece on its own (no neighbour within GAP) this short is taken for chance.
LONE_PIECE = 24
# The share of the chunk's letters and digits that must be found for any box at all.
MIN_COVERAGE = 0.3
# Anchors are indexed at every this many keys of the pages.
_STRIDE = 4
# How many places of one anchor are tried (common phrases occur often).
_CANDIDATES = 16
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


_ASCII_RUN = re.compile(r"[A-Za-z0-9]+|[^\x00-\x7f]")


def keys_of(text: str) -> tuple[str, list[int]]:
    """The letters and digits of `text`, NFKC and case-folded, with each one's index in it."""
    keys: list[str] = []
    where: list[int] = []
    for match in _ASCII_RUN.finditer(text):
        start = match.start()
        run = match.group()
        if run.isascii():
            keys.append(run.lower())
            where.extend(range(start, start + len(run)))
            continue
        for key in unicodedata.normalize("NFKC", run).casefold():
            if key.isalnum():
                keys.append(key)
                where.append(start)
    return "".join(keys), where


def _common_length(a: str, i: int, b: str, p: int) -> int:
    """How many characters `a[i:]` and `b[p:]` share from their start (galloping, then a
    binary search; every comparison is one slice compare)."""
    high = min(len(a) - i, len(b) - p)
    low, step = 0, ANCHOR
    while low + step <= high and a[i + low : i + low + step] == b[p + low : p + low + step]:
        low += step
        step *= 2
    top = min(high, low + step)
    while low < top:
        middle = (low + top + 1) // 2
        if a[i + low : i + middle] == b[p + low : p + middle]:
            low = middle
        else:
            top = middle - 1
    return low


class _Haystack:
    """The letters and digits of some pages, with an index of their anchors: those that
    start every `_STRIDE` keys (a run of `ANCHOR + _STRIDE - 1` shared keys holds one)."""

    def __init__(self, keys: str) -> None:
        self.keys = keys
        self.anchors: dict[str, list[int]] = {}
        for p in range(0, len(keys) - ANCHOR + 1, _STRIDE):
            self.anchors.setdefault(keys[p : p + ANCHOR], []).append(p)

    def pieces(self, needle: str, low: int, high: int) -> list[tuple[int, int, int]]:
        """(needle start, haystack start, length) of the pieces of `needle` found in
        `keys[low:high]`, greedily from the needle's start."""
        if len(needle) < ANCHOR:  # too short for an anchor: the whole of it, or nothing
            at = self.keys.find(needle, low, high)
            return [(0, at, len(needle))] if at >= 0 else []
        found: list[tuple[int, int, int]] = []
        i = floor = 0
        while i <= len(needle) - ANCHOR:
            places = self.anchors.get(needle[i : i + ANCHOR], ())
            best, best_at = 0, -1
            for p in [p for p in places if low <= p <= high - ANCHOR][:_CANDIDATES]:
                length = min(_common_length(needle, i, self.keys, p), high - p)
                if length > best:
                    best, best_at = length, p
            if best < ANCHOR:
                i += 1
                continue
            # The anchor may start a few keys into the shared run: take those keys too.
            start, at = i, best_at
            while start > floor and at > low and needle[start - 1] == self.keys[at - 1]:
                start, at = start - 1, at - 1
            found.append((start, at, best + i - start))
            i = floor = i + best
        return found


def spans(
    pieces: Sequence[tuple[int, int, int]], breaks: Sequence[int] = ()
) -> list[tuple[int, int]]:
    """The haystack ranges to highlight: pieces in page order, near ones joined (never
    across one of `breaks`, where a page starts), lone short ones dropped."""
    ordered = sorted((p, p + length) for _, p, length in pieces)
    joined: list[list[int]] = []
    for start, end in ordered:
        crosses = any(joined[-1][1] < b <= start for b in breaks) if joined else True
        if joined and not crosses and start - joined[-1][1] <= GAP:
            joined[-1][1] = max(joined[-1][1], end)
        else:
            joined.append([start, end])
    longest = max((e - s for s, e in joined), default=0)
    return [(s, e) for s, e in joined if e - s >= min(LONE_PIECE, longest)]


def find_text(needle: str, haystack: str) -> tuple[list[tuple[int, int]], float]:
    """Where `needle` lies in `haystack` as (start, end) character ranges of the haystack,
    and the share of the needle's letters and digits found; the same matching as on pages."""
    needle_keys, _ = keys_of(needle)
    hay_keys, where = keys_of(haystack)
    if not needle_keys or not hay_keys:
        return [], 0.0
    pieces = _Haystack(hay_keys).pieces(needle_keys, 0, len(hay_keys))
    coverage = sum(length for *_, length in pieces) / len(needle_keys)
    if coverage < MIN_COVERAGE:
        return [], coverage
    return [(where[s], where[e - 1] + 1) for s, e in spans(pieces)], coverage


CharRange = tuple[int, int, int]  # (page, first character index, count)
ChunkPlace = tuple[str, int, int]  # (text, first page, last page)


@dataclass
class _Page:
    number: int
    start: int  # where the page's keys begin in the document's keys
    where: list[int]  # each key's character index on the page


def page_text(textpage: pdfium.PdfTextPage) -> str:
    """The page's text with one character per pdfium character index."""
    count = textpage.count_chars()
    text = str(textpage.get_text_range()) if count else ""
    if len(text) == count:
        return text
    handle = textpage.raw
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(handle, i) or 0xFFFD) for i in range(count))


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
        self.haystack = _Haystack("".join(parts))

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
