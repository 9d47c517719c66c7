"""Where a page's text and graphics sit: words with boxes, lines, figures, rules.

`read_page` turns one PDFium page into a `PageGeometry`: its words (the runs
of characters between spaces, each with the box of its first and last
characters and the font's rendered size), grouped into lines in PDFium's
order; the boxes of its images and embedded figures (form objects); and the
boxes of its vector paths. Coordinates are PDF points, y grows upwards.
A page whose text cannot be placed raises `LayoutUnreadable`.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.errors import PaperchatError

SOFT_HYPHEN = "\ufffe"
_PAIR_TAIL = "\u2060"  # stands for the second half of a surrogate pair
# PDFium marks some line-end hyphens with U+0002 instead of U+FFFE.
_HYPHEN_MARK = "\x02"
# A word: characters up to a space or break, or up to and with a line-end hyphen mark.
_WORD_RE = re.compile(r"[^\s\x00\ufffe]*\ufffe|[^\s\x00\ufffe]+")
# Page objects: text, path, image, shading, form (fpdf_edit.h).
_PATH, _IMAGE, _SHADING, _FORM = 2, 3, 4, 5
# A form object this large holds the page's text (a page imported whole), not a figure:
# its own objects are read instead.
_WHOLE_PAGE_SHARE = 0.35
_MAX_OBJECTS = 50_000
# A single character whose box is this much wider than high is set sideways.
_SIDEWAYS = 1.6


class LayoutUnreadable(PaperchatError):
    """A page whose text has no usable geometry: read it as plain text instead."""


class Box(NamedTuple):
    x0: float
    y0: float  # bottom
    x1: float
    y1: float  # top

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def grown(self, margin: float) -> Box:
        return Box(self.x0 - margin, self.y0 - margin, self.x1 + margin, self.y1 + margin)

    def overlap(self, other: Box) -> float:
        """The area this box shares with `other`."""
        width = min(self.x1, other.x1) - max(self.x0, other.x0)
        height = min(self.y1, other.y1) - max(self.y0, other.y0)
        return max(width, 0.0) * max(height, 0.0)

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )


class Word(NamedTuple):
    text: str
    box: Box
    size: float  # the font's rendered size: the height of its characters' loose boxes
    lead: Box  # the box of its first character, to tell a raised footnote mark
    upright: bool = True  # False for text set sideways (the arXiv stamp in the margin)


class Line:
    """Words on one baseline, left to right, as PDFium ordered them."""

    def __init__(self, words: list[Word]) -> None:
        self.words = words

    @cached_property
    def text(self) -> str:
        return " ".join(word.text for word in self.words)

    @cached_property
    def box(self) -> Box:
        return Box(
            min(word.box.x0 for word in self.words),
            min(word.box.y0 for word in self.words),
            max(word.box.x1 for word in self.words),
            max(word.box.y1 for word in self.words),
        )

    @cached_property
    def size(self) -> float:
        """The size most of the line's letters are set in."""
        weights: dict[float, int] = {}
        for word in self.words:
            key = round(word.size * 2) / 2
            weights[key] = weights.get(key, 0) + len(word.text)
        return max(weights, key=lambda key: (weights[key], key))

    @cached_property
    def core(self) -> tuple[float, float]:
        """Bottom and top of the words set in the line's own size (no tall or raised glyphs)."""
        own = [w for w in self.words if abs(w.size - self.size) <= 0.5] or self.words
        return min(w.box.y0 for w in own), max(w.box.y1 for w in own)


@dataclass(frozen=True)
class PageGeometry:
    width: float
    height: float
    lines: list[Line]
    figures: list[Box]  # images and embedded figures
    paths: list[Box]  # vector graphics: rules, boxes, plotted lines


def read_page(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage) -> PageGeometry:
    """The words, lines and graphics of one page; raises `LayoutUnreadable`."""
    if page.get_rotation() % 360:
        raise LayoutUnreadable("the page is rotated")
    width, height = page.get_size()
    words = _words(textpage)
    figures, paths = _graphics(page.raw, width, height)
    return PageGeometry(width, height, _lines(words), figures, paths)


def _page_text(handle: pdfium_c.FPDF_TEXTPAGE, count: int) -> str:
    buffer = (ctypes.c_ushort * (count + 1))()
    written = pdfium_c.FPDFText_GetText(handle, 0, count, buffer)
    raw = ctypes.string_at(buffer, max(written - 1, 0) * 2)
    text = raw.decode("utf-16-le", errors="replace")
    if len(text) == count:
        return text.replace(_HYPHEN_MARK, SOFT_HYPHEN)
    # Characters outside the BMP take two indices, a surrogate pair: the pair's
    # character goes to the first index, a placeholder to the second.
    units = [pdfium_c.FPDFText_GetUnicode(handle, i) for i in range(count)]
    chars = []
    for index, unit in enumerate(units):
        nxt = units[index + 1] if index + 1 < count else 0
        if 0xD800 <= unit < 0xDC00 and 0xDC00 <= nxt < 0xE000:
            chars.append(chr(0x10000 + ((unit - 0xD800) << 10) + (nxt - 0xDC00)))
        elif 0xD800 <= unit < 0xE000:
            chars.append(
                _PAIR_TAIL
                if chars and len(chars[-1]) == 1 and ord(chars[-1]) > 0xFFFF
                else "\ufffd"
            )
        else:
            chars.append(chr(unit) if unit else " ")
    return "".join(chars).replace(_HYPHEN_MARK, SOFT_HYPHEN)


def _words(textpage: pdfium.PdfTextPage) -> list[Word]:
    handle = textpage.raw
    count = pdfium_c.FPDFText_CountChars(handle)
    if count < 0:
        raise LayoutUnreadable("PDFium cannot count the page's characters")
    text = _page_text(handle, count)
    rect = pdfium_c.FS_RECTF()
    ref = ctypes.byref(rect)
    loose_box = pdfium_c.FPDFText_GetLooseCharBox

    def char_box(index: int) -> tuple[float, float, float, float]:
        if not loose_box(handle, index, ref):
            raise LayoutUnreadable(f"character {index} has no box")
        return rect.left, rect.bottom, rect.right, rect.top

    words: list[Word] = []
    for match in _WORD_RE.finditer(text):
        start, end = match.start(), match.end() - 1
        head = char_box(start)
        word = match.group().replace(_PAIR_TAIL, "")
        words.append(_word(word, head, head if end == start else char_box(end)))
    return words


def _word(
    text: str, first: tuple[float, float, float, float], last: tuple[float, float, float, float]
) -> Word:
    left, bottom, right, top = first
    lead = Box(left, bottom, right, top)
    if last is first:
        return Word(text, lead, top - bottom, lead, right - left <= _SIDEWAYS * (top - bottom))
    left2, bottom2, right2, top2 = last
    box = Box(
        left if left < left2 else left2,
        bottom if bottom < bottom2 else bottom2,
        right if right > right2 else right2,
        top if top > top2 else top2,
    )
    size = max(top - bottom, top2 - bottom2)
    rise = abs((bottom2 + top2) - (bottom + top)) / 2
    advance = abs((left2 + right2) - (left + right)) / 2
    return Word(text, box, size, lead, rise <= max(advance, 0.5 * (top - bottom)))


def _starts_line(words: list[Word], word: Word) -> bool:
    """Does `word` begin a new line after `words`?"""
    last = words[-1]
    if last.text.endswith(SOFT_HYPHEN) or word.box.x0 < last.box.x0 - 1.0:
        return True
    shared = min(word.box.y1, last.box.y1) - max(word.box.y0, last.box.y0)
    return shared < 0.3 * min(word.box.height, last.box.height)


def _lines(words: list[Word]) -> list[Line]:
    groups: list[list[Word]] = []
    for word in words:
        if word.box.height <= 0 or word.box.width < 0:
            continue
        if not groups or _starts_line(groups[-1], word):
            groups.append([word])
        else:
            groups[-1].append(word)
    return [Line(group) for group in groups]


def _bounds(handle: pdfium_c.FPDF_PAGEOBJECT) -> Box | None:
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    if not pdfium_c.FPDFPageObj_GetBounds(handle, left, bottom, right, top):
        return None
    return Box(left.value, bottom.value, right.value, top.value)


_Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _matrix(handle: pdfium_c.FPDF_PAGEOBJECT, outer: _Matrix) -> _Matrix:
    """The matrix from a form object's own space to the page's."""
    raw = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(handle, raw):
        return outer
    a, b, c, d, e, f = outer
    m = (raw.a, raw.b, raw.c, raw.d, raw.e, raw.f)
    return (
        m[0] * a + m[1] * c,
        m[0] * b + m[1] * d,
        m[2] * a + m[3] * c,
        m[2] * b + m[3] * d,
        m[4] * a + m[5] * c + e,
        m[4] * b + m[5] * d + f,
    )


def _placed(box: Box, matrix: _Matrix) -> Box:
    if matrix == _IDENTITY:
        return box
    a, b, c, d, e, f = matrix
    xs = [a * x + c * y + e for x in (box.x0, box.x1) for y in (box.y0, box.y1)]
    ys = [b * x + d * y + f for x in (box.x0, box.x1) for y in (box.y0, box.y1)]
    return Box(min(xs), min(ys), max(xs), max(ys))


def _graphics(page: pdfium_c.FPDF_PAGE, width: float, height: float) -> tuple[list[Box], list[Box]]:
    """Boxes of images and embedded figures, and of vector paths, on the page.

    A form object as large as a good part of the page holds text as well as
    figures: its own objects are read, placed on the page by its matrix.
    """
    figures: list[Box] = []
    paths: list[Box] = []
    page_box = Box(0.0, 0.0, width, height)
    pending = [
        (pdfium_c.FPDFPage_GetObject(page, i), _IDENTITY) for i in range(_object_count(page))
    ]
    while pending:
        handle, matrix = pending.pop()
        kind = pdfium_c.FPDFPageObj_GetType(handle)
        if kind not in (_PATH, _IMAGE, _SHADING, _FORM):
            continue
        bounds = _bounds(handle)
        if bounds is None:
            continue
        box = _placed(bounds, matrix)
        if kind == _FORM and box.overlap(page_box) > _WHOLE_PAGE_SHARE * width * height:
            inner = _matrix(handle, matrix)
            count = min(pdfium_c.FPDFFormObj_CountObjects(handle), _MAX_OBJECTS - len(pending))
            pending.extend((pdfium_c.FPDFFormObj_GetObject(handle, i), inner) for i in range(count))
        elif kind in (_PATH, _SHADING):
            paths.append(box)
        else:
            figures.append(box)
    return figures, paths


def _object_count(page: pdfium_c.FPDF_PAGE) -> int:
    count = int(pdfium_c.FPDFPage_CountObjects(page))
    if count > _MAX_OBJECTS:
        raise LayoutUnreadable(f"{count} graphic objects, too many to place")
    return max(count, 0)
