"""Page 1 as lines of glyphs: each character's box and rendered size, from pypdfium2.

The header reader (`header.py`) needs more than a page's text: which type is
largest (the title), which marks are raised and small (affiliation and
footnote marks), where a column runs. PDFium reports a tight box per glyph
(its ink) and a loose box (the font's full height at its rendered size); the
loose box's height is the type size, because the font size PDFium reports
ignores the text matrix and is 1.0 in some files.
"""

from __future__ import annotations

import ctypes
import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

# Page 1 of a paper holds under 10,000 characters; a header is read from the first ones.
MAX_HEADER_CHARS = 12_000
# Fragments whose baselines differ by less than this share of their size sit on one line.
_SAME_LINE = 0.35
# Fragments closer than this many type sizes side by side are one line's words.
_JOIN_GAP = 1.0
# A gap wider than this share of the type size between two glyphs is a space.
_SPACE_GAP = 0.12
_RECENT_LINES = 8
# A gap this many type sizes wide, or wider, parts two names set side by side.
_WIDE_GAP = 0.6
_SMALL_CAPS = 0.9  # a capital this much smaller than the line's largest type is a small capital
# A run of raised, smaller letters this long is a word set small, not a mark (`Line.marks`).
_WORD_LETTERS = 3
_CLOSING = frozenset(",.;:)]")
SOFT_HYPHEN = "\ufffe"  # a hyphen that breaks a word at a line's end


@dataclass(frozen=True)
class Glyph:
    char: str
    left: float  # the ink's box
    right: float
    low: float  # the loose box: the font's full height at its rendered size
    high: float
    style: str  # font name and weight
    size: float = field(init=False)  # the loose box's height: the rendered type size

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", self.high - self.low)


@dataclass
class Line:
    """Glyphs on one baseline, near enough to be read as one run of text."""

    glyphs: list[Glyph] = field(default_factory=list)
    spaces_before: set[int] = field(default_factory=set)  # indexes of glyphs after a space

    @cached_property
    def left(self) -> float:
        return min(g.left for g in self.glyphs)

    @cached_property
    def right(self) -> float:
        return max(g.right for g in self.glyphs)

    @cached_property
    def size(self) -> float:
        """The largest type on the line: raised marks are smaller, small capitals too."""
        return max(g.size for g in self.glyphs)

    @cached_property
    def body_size(self) -> float:
        sizes = sorted(g.size for g in self.glyphs if g.char.isalnum()) or [self.size]
        return sizes[len(sizes) // 2]

    @cached_property
    def base(self) -> float:
        """The bottom of the line's full-size type (raised marks sit higher)."""
        full = 0.8 * self.size
        return min(g.low for g in self.glyphs if g.size >= full)

    @cached_property
    def top(self) -> float:
        return max(g.high for g in self.glyphs)

    @cached_property
    def style(self) -> str:
        """The font most of the line's letters are set in."""
        styles = [g.style for g in self.glyphs if g.char.isalpha()] or [""]
        return max(set(styles), key=styles.count)

    def is_mark(self, glyph: Glyph, host: Glyph | None = None) -> bool:
        """A raised, smaller glyph: a footnote or affiliation mark. Raised and smaller than
        `host`, the glyph it follows (else than the line): capitals set smaller beside a
        larger one ("JONATHAN" in capitals) or a name's period are no marks."""
        size, base = (host.size, host.low) if host is not None else (self.size, self.base)
        return glyph.size < 0.8 * size and glyph.low > base + 0.15 * size

    def marks(self) -> list[bool]:
        """For each glyph, whether it is a mark (`is_mark`, against the last glyph before
        it that is none). A run of such glyphs that spells a word of `_WORD_LETTERS` letters
        or more is no mark but a word set in smaller type ("Flash" of FlashAttention, set in
        small capitals): marks are digits, symbols and a letter or two."""
        found: list[bool] = []
        host: Glyph | None = None
        for glyph in self.glyphs:
            mark = self.is_mark(glyph, host)
            found.append(mark)
            if not mark:
                host = glyph
        start = 0
        while start < len(found):
            if not found[start]:
                start += 1
                continue
            end = start
            while end < len(found) and found[end]:
                end += 1
            run = "".join(g.char for g in self.glyphs[start:end])
            if run.isalpha() and len(run) >= _WORD_LETTERS:
                found[start:end] = [False] * (end - start)
            start = end
        return found

    def text(self, *, marks: bool = True, wide: bool = False, small_caps: bool = False) -> str:
        """The line's text; without raised marks if `marks` is False; with `wide`, a wide
        gap (between names set side by side) as two spaces; with `small_caps`, small
        capitals in lower case when the line is set in them."""
        parts: list[str] = []
        last: Glyph | None = None
        lower = small_caps and self.has_small_caps()
        small = _SMALL_CAPS * self.size
        is_mark = self.marks() if not marks else [False] * len(self.glyphs)
        for index, glyph in enumerate(self.glyphs):
            if is_mark[index]:
                if parts and parts[-1] != " ":
                    parts.append(" ")
                continue
            # "competitions1, where": the mark goes, and so does the space before the comma.
            if glyph.char in _CLOSING and index and is_mark[index - 1] and parts[-1:] == [" "]:
                parts.pop()
            elif wide and last is not None and glyph.left - last.right > _WIDE_GAP * self.size:
                parts.append("  ")
            elif index in self.spaces_before and parts and parts[-1] != " ":
                parts.append(" ")
            small_capital = lower and glyph.char.isupper() and glyph.size < small
            parts.append(glyph.char.lower() if small_capital else glyph.char)
            last = glyph
        joined = "".join(parts)
        if wide:
            return "  ".join(
                " ".join(piece.split()) for piece in joined.split("  ") if piece.strip()
            )
        return " ".join(joined.split())

    def has_small_caps(self) -> bool:
        """True when some word's capital is followed by capitals in smaller type, the larger
        one reaching higher (I + MAGE); a J whose box only reaches lower ("JONATHAN" set in
        capitals) is no small-capitals setting."""
        small = _SMALL_CAPS * self.size
        for before, after in itertools.pairwise(self.glyphs):
            if not (before.char.isupper() and after.char.isupper()):
                continue
            taller = before.high - after.high > 0.5 * (before.size - after.size)
            if before.size >= small > after.size and taller:
                return True
        return False

    def absorb(self, other: Line) -> None:
        """Take `other`'s glyphs, set to the left or right of this line's, with a space
        between the two when the gap between them is a word space or wider."""
        left, right = (other, self) if other.left < self.left else (self, other)
        gap = right.left - left.right
        offset = len(left.glyphs)
        spaces = left.spaces_before | {offset + i for i in right.spaces_before}
        if gap > _SPACE_GAP * max(left.size, right.size):
            spaces.add(offset)
        self.glyphs = [*left.glyphs, *right.glyphs]
        self.spaces_before = spaces
        for name in _MEASURES:
            self.__dict__.pop(name, None)


_MEASURES = ("left", "right", "size", "body_size", "base", "top", "style")


def read_lines(document: pdfium.PdfDocument, page_index: int = 0) -> list[Line]:
    """The page's upright text as lines, in the order the page's content draws them."""
    page = document[page_index]
    textpage = page.get_textpage()
    try:
        fragments = _fragments(textpage.raw)
    finally:
        textpage.close()
        page.close()
    return _merge(fragments)


def _fragments(handle: pdfium_c.FPDF_TEXTPAGE) -> list[Line]:
    """Runs of glyphs on one line, in drawing order; rotated text left out.

    A run ends at a line break PDFium reports, and where the next glyph starts
    a new line without one (PDFium marks a hyphen at a line's end as \x02).
    """
    count = min(pdfium_c.FPDFText_CountChars(handle), MAX_HEADER_CHARS)
    fragments: list[Line] = []
    current = Line()
    font = ctypes.create_string_buffer(64)
    for index in range(count):
        char = chr(pdfium_c.FPDFText_GetUnicode(handle, index))
        if char in "\r\n":
            if current.glyphs:
                fragments.append(current)
            current = Line()
            continue
        if char.isspace() or char == "\x00":
            current.spaces_before.add(len(current.glyphs))
            continue
        glyph = _glyph(handle, index, char, font)
        if glyph is None:
            continue
        if char == "\x02":
            glyph = Glyph(SOFT_HYPHEN, glyph.left, glyph.right, glyph.low, glyph.high, glyph.style)
        if current.glyphs and _starts_line(current.glyphs[-1], glyph):
            fragments.append(current)
            current = Line()
        current.glyphs.append(glyph)
    if current.glyphs:
        fragments.append(current)
    return fragments


def _glyph(
    handle: pdfium_c.FPDF_TEXTPAGE, index: int, char: str, font: ctypes.Array[ctypes.c_char]
) -> Glyph | None:
    angle = pdfium_c.FPDFText_GetCharAngle(handle, index)
    if angle < 0 or min(angle, 2 * math.pi - angle) > 0.05:
        return None  # the rotated arXiv stamp in the margin, or text set at an angle
    left, right = pdfium_c.c_double(), pdfium_c.c_double()
    bottom, top = pdfium_c.c_double(), pdfium_c.c_double()
    loose = pdfium_c.FS_RECTF()
    if not pdfium_c.FPDFText_GetCharBox(handle, index, left, right, bottom, top):
        return None
    if not pdfium_c.FPDFText_GetLooseCharBox(handle, index, loose):
        return None
    if loose.top - loose.bottom <= 0:
        return None
    style = _style(handle, index, font)
    return Glyph(char, left.value, right.value, loose.bottom, loose.top, style)


def _style(handle: pdfium_c.FPDF_TEXTPAGE, index: int, font: ctypes.Array[ctypes.c_char]) -> str:
    """The glyph's font name and weight: names in a grid differ in style from addresses."""
    length = pdfium_c.FPDFText_GetFontInfo(handle, index, font, len(font), None)
    name = font.value.decode("latin-1") if 0 < length <= len(font) else ""
    return f"{name.split('+')[-1]}/{pdfium_c.FPDFText_GetFontWeight(handle, index)}"


def _starts_line(previous: Glyph, glyph: Glyph) -> bool:
    """True when `glyph` sits below `previous` and back to its left: a new line began."""
    size = max(previous.size, glyph.size)
    return glyph.high < previous.low + 0.3 * size and glyph.left < previous.left - size


def _merge(fragments: list[Line]) -> list[Line]:
    """Join fragments that continue one another on the same baseline."""
    lines: list[Line] = []
    for fragment in fragments:
        host = next(
            (line for line in reversed(lines[-_RECENT_LINES:]) if _joins(line, fragment)), None
        )
        if host is None:
            lines.append(fragment)
        else:
            host.absorb(fragment)
    return lines


def _joins(line: Line, fragment: Line) -> bool:
    size = max(line.size, fragment.size)
    if abs(line.base - fragment.base) > _SAME_LINE * size:
        return False
    gap = max(fragment.left - line.right, line.left - fragment.right)
    return gap < _JOIN_GAP * size
