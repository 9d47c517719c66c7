"""A page's words and lines from PDFium's characters, read as they are typeset.

A word is the characters between two spaces, with the loose box of each (as
tall as its font at its rendered size). Where a word's characters change
size, their font sizes and baselines tell what they are: smaller and lower is
a subscript, joined to a name with a hyphen (BERT with a LARGE subscript reads
"BERT-large"); smaller capitals on the baseline after a full capital are small
capitals, written in lower case ("ADAM" set A + small DAM reads "Adam"), and
so is a word of the line set all in those small capitals ("FOR" reads "for").
Letters set closer together than half the line's word space are one word
(letter-spaced capitals "C L A S S", small capitals "F iD"). Words are
grouped into lines in PDFium's order.
"""

from __future__ import annotations

import ctypes
import re
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby, pairwise

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.pdf.layout.boxes import Box, LayoutUnreadable, Line, Word

SOFT_HYPHEN = "\ufffe"
_PAIR_TAIL = "\u2060"  # stands for the second half of a surrogate pair
# PDFium marks some line-end hyphens with U+0002 instead of U+FFFE.
_HYPHEN_MARK = "\x02"
# A word: characters up to a space or break, or up to and with a line-end hyphen mark.
_WORD_RE = re.compile(r"[^\s\x00\ufffe]*\ufffe|[^\s\x00\ufffe]+")
# A single character whose box is this much wider than high is set sideways.
_SIDEWAYS = 1.6
# A character under this share of its word's largest size is set smaller.
_SMALLER = 0.9
# A smaller character's baseline this share of the word's size lower is a subscript's, this
# share higher a superscript's; in between, it sits on the baseline (small capitals).
_LOWER = 0.08
_HIGHER = 0.15
# Small capitals share their capital's baseline to within this share of its size.
_SAME_BASELINE = 0.02
# A subscript of this many letters after a name of as many is a name's part ("BERT-large");
# shorter ones are symbols' indices (d_model, z_U).
_NAME = 3
# Letters closer than this share of the spaces around them belong to one word.
_TIGHT = 0.5
_LEVEL = 0.25  # and sit on one baseline: their boxes' bottoms this share of a size apart
# A word that may end in a power of ten set as a superscript ("1020" printed as 10^20).
_POWER = re.compile(r"10[\u2212-]?\d{1,3}$")
# What a power's exponent follows: a digit, or a minus sign after one.
_MINUS = "\u2212-"
_POWER_BASE = re.compile(r"\d[\u2212-]?$")
# A superscript that is an exponent: digits, with a minus sign or not.
_EXPONENT = re.compile(r"[\u2212-]?\d{1,3}")
# A footnote mark set apart is this share of the line's size or smaller.
_MARK_SIZE = 0.8
# A word that may end in a footnote mark: digits after letters or a sentence's punctuation.
_MARKED = re.compile(r"(?:[^\W\d_]{3}|[.,;:\u201d\"')])\d{1,2}$")
# What a footnote mark follows: a word of three letters or more, or punctuation after one.
_MARK_HOST = re.compile(r"[^\W\d_]{3}$|\w[)\]\"'\u201d]?[.,;:]$|\w[\"'\u201d]$")

Rect = tuple[float, float, float, float]  # left, bottom, right, top


@dataclass(frozen=True)
class _Piece:
    """A word and the size of the small capitals it is partly set in (0 for none)."""

    word: Word
    small_caps: float = 0.0
    uniform: bool = True  # all its characters set in one size


def read_lines(textpage: pdfium.PdfTextPage) -> list[Line]:
    """The page's words grouped into lines, in PDFium's order."""
    handle = textpage.raw
    count = pdfium_c.FPDFText_CountChars(handle)
    if count < 0:
        raise LayoutUnreadable("PDFium cannot count the page's characters")
    text = _page_text(handle, count)
    groups: list[list[_Piece]] = []
    for piece in _pieces(handle, text):
        word = piece.word
        if word.box.height <= 0 or word.box.width < 0:
            continue
        if not groups or _starts_line([p.word for p in groups[-1]], word):
            groups.append([piece])
        else:
            groups[-1].append(piece)
    return [Line(_without_marks(_retype(group))) for group in groups]


def _without_marks(words: list[Word]) -> list[Word]:
    """The line's words but its footnote marks set apart from the word they follow ("heads
    as A. 3": a raised, smaller "3"); a mark that opens the line is a footnote's own."""
    if len(words) < 2:
        return words
    size = max(w.size for w in words)
    bottom = min(w.box.y0 for w in words if w.size >= _SMALLER * size)
    kept = [words[0]]
    for word in words[1:]:
        raised = word.box.y0 - bottom > _HIGHER * size and word.size < _MARK_SIZE * size
        mark = raised and word.text.isdigit() and len(word.text) <= 2
        if mark and _MARK_HOST.search(kept[-1].text):
            continue
        kept.append(word)
    return kept


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


def _pieces(handle: pdfium_c.FPDF_TEXTPAGE, text: str) -> Iterator[_Piece]:
    rect = pdfium_c.FS_RECTF()
    ref = ctypes.byref(rect)
    loose_box = pdfium_c.FPDFText_GetLooseCharBox

    def char_box(index: int) -> Rect | None:
        if not loose_box(handle, index, ref):
            return None
        return rect.left, rect.bottom, rect.right, rect.top

    for match in _WORD_RE.finditer(text):
        start, end = match.start(), match.end()
        if _may_change_size(match.group()):
            rects = [char_box(index) for index in range(start, end)]
        else:
            rects = [char_box(start), *[None] * (end - start - 1)]
            rects[-1] = char_box(end - 1) if end - start > 1 else rects[0]
        yield _piece(handle, match.group(), start, rects)


def _may_change_size(word: str) -> bool:
    """Could the word hold a subscript name or small capitals (only with a capital letter
    in it), or end in a footnote mark? Most words cannot, and their characters' boxes are
    not read."""
    if _MARKED.search(word) or _POWER.search(word):
        return True
    return len(word) >= 3 and any(char.isupper() for char in word)


def _piece(
    handle: pdfium_c.FPDF_TEXTPAGE, text: str, start: int, rects: list[Rect | None]
) -> _Piece:
    first, last = rects[0], rects[-1]
    if first is None or last is None:
        raise LayoutUnreadable(f"character {start} or {start + len(rects) - 1} has no box")
    heights = [r[3] - r[1] for r in rects if r is not None]
    # The largest of its letters and digits: a math font's minus sign (10^-8) may stand taller.
    largest = max(
        (r[3] - r[1] for r, c in zip(rects, text, strict=False) if r is not None and c.isalnum()),
        default=max(heights),
    )
    if min(heights) >= _SMALLER * largest:
        return _Piece(_word(text.replace(_PAIR_TAIL, ""), first, last))
    kinds = _kinds(handle, start, rects, largest)
    small = [
        rect[3] - rect[1]
        for rect, kind, char in zip(rects, kinds, text, strict=True)
        if rect is not None and kind == "caps" and char.isupper()
    ]
    typeset = _typeset(text, kinds).replace(_PAIR_TAIL, "")
    return _Piece(_word(typeset, first, last), max(small, default=0.0), uniform=False)


def _kinds(
    handle: pdfium_c.FPDF_TEXTPAGE, start: int, rects: Sequence[Rect | None], largest: float
) -> list[str]:
    """Each character's part in a word set in more than one size: "" (the word's own
    size), "sub", "sup" or "caps" (smaller, on the baseline)."""
    x, y = ctypes.c_double(), ctypes.c_double()
    sizes, baselines = [], []
    for index in range(start, start + len(rects)):
        sizes.append(pdfium_c.FPDFText_GetFontSize(handle, index))
        pdfium_c.FPDFText_GetCharOrigin(handle, index, ctypes.byref(x), ctypes.byref(y))
        baselines.append(y.value)
    own = [i for i, r in enumerate(rects) if r is not None and r[3] - r[1] >= _SMALLER * largest]
    base = statistics.median(baselines[i] for i in own)
    size = max(sizes[i] for i in own)
    kinds = []
    for index, rect in enumerate(rects):
        # A font size of 1 is set by the text matrix: only the boxes tell sizes apart then.
        same_size = size > 1.0 and sizes[index] >= _SMALLER * size
        if rect is None or index in own or same_size:
            kinds.append("")
            continue
        shift = (baselines[index] - base) / largest
        if shift < -_LOWER:
            kinds.append("sub")
        elif shift > _HIGHER:
            kinds.append("sup")
        else:
            kinds.append("caps" if abs(shift) <= _SAME_BASELINE else "")
    return kinds


def _typeset(text: str, kinds: Sequence[str]) -> str:
    """The word's text with a subscript name joined by a hyphen ("BERT-large") and small
    capitals after a full capital in lower case ("Adam")."""
    full_capital = any(c.isupper() for c, k in zip(text, kinds, strict=True) if not k)
    out = ""
    index = 0
    for kind, run in groupby(kinds):
        part = text[index : index + len(list(run))]
        index += len(part)
        letters = part.replace(_PAIR_TAIL, "")
        name = _name_at_end(out)
        if _marked_at(out, letters, kind, at_end=index == len(text)):
            continue
        if kind == "sup" and _EXPONENT.fullmatch(letters) and _POWER_BASE.search(out):
            # A power: "1.0 · 10^20", "10^-8" (its minus sign may sit on the line), not "1020".
            sign = out[-1] if out[-1] in _MINUS else ""
            out = out[: len(out) - len(sign)] + "^" + sign + part
            continue
        if kind == "sub" and letters.isalpha() and len(letters) >= _NAME and name:
            # Capitals under capitals name a variant (BERT_LARGE: "BERT-large"); under a
            # word in lower case, an acronym (join_BERT: "join-BERT").
            out += "-" + (letters.lower() if letters.isupper() and name.isupper() else letters)
        elif kind == "caps" and full_capital:
            out += part.lower()
        else:
            out += part
    return out


def _marked_at(out: str, part: str, kind: str, at_end: bool) -> bool:
    """Whether `part` is a footnote mark to leave out: raised digits ending the word, after
    a word of letters ("library.1", "documents1") or a sentence's punctuation; never after
    a digit or a symbol's single letter (10^-8, x^2 stay)."""
    return kind == "sup" and at_end and part.isdigit() and _MARK_HOST.search(out) is not None


def _name_at_end(text: str) -> str:
    """The name `text` ends in ("BERT", "RoBERTa"), or "" for none or a symbol ("d", "zU")."""
    found = re.search(rf"[^\W\d_]{{{_NAME},}}$", text)
    return found.group() if found else ""


def _word(text: str, first: Rect, last: Rect) -> Word:
    left, bottom, right, top = first
    lead = Box(left, bottom, right, top)
    if last is first:
        return Word(text, lead, top - bottom, lead, right - left <= _SIDEWAYS * (top - bottom))
    left2, bottom2, right2, top2 = last
    box = Box(min(left, left2), min(bottom, bottom2), max(right, right2), max(top, top2))
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


def _retype(pieces: list[_Piece]) -> list[Word]:
    """A line's words with its small capitals in lower case and its letter-spaced
    words closed up."""
    small = max(piece.small_caps for piece in pieces)
    words = [
        piece.word._replace(text=piece.word.text.lower())
        if small and piece.uniform and _all_capitals(piece.word.text)
        and abs(piece.word.size - small) <= 0.05 * small
        else piece.word
        for piece in pieces
    ]  # fmt: skip
    return _close_up(words)


def _all_capitals(text: str) -> bool:
    """A word of capitals, two at least (a lone capital is a symbol: D, L)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _close_up(words: list[Word]) -> list[Word]:
    """The line's words with letters set apart by less than half the spaces around them
    joined: a run of three or more single letters ("C L A S S"), or a capital and the
    word it begins ("F iD", "(L STM)")."""
    if len(words) < 2:
        return words
    gaps = [b.box.x0 - a.box.x1 for a, b in pairwise(words)]
    joins = [False] * len(gaps)
    for first, last in _spaced_runs(words, gaps):
        joins[first:last] = [True] * (last - first)
    for index, gap in enumerate(gaps):
        around = [g for g in (gaps[index - 1] if index else None, _at(gaps, index + 1)) if g]
        if around and gap < _TIGHT * min(around) and _capital_starts(*words[index : index + 2]):
            joins[index] = True
    out = [words[0]]
    for join, word in zip(joins, words[1:], strict=True):
        out[-1:] = [_joined(out[-1], word)] if join else [out[-1], word]
    return out


def _at(gaps: list[float], index: int) -> float | None:
    return gaps[index] if index < len(gaps) else None


def _spaced_runs(words: list[Word], gaps: list[float]) -> Iterator[tuple[int, int]]:
    """(first gap, last gap + 1) of each run of three or more single letters set an even
    space apart, under half the space before and after the run."""
    index = 0
    while index < len(gaps):
        end = index
        while end < len(gaps) and _letters_meet(words[end], words[end + 1], single=True):
            end += 1
        inner = gaps[index:end]
        outer = [g for g in (gaps[index - 1] if index else None, _at(gaps, end)) if g]
        even = bool(inner) and max(inner) <= 1.5 * max(min(inner), 0.1)
        if len(inner) >= 2 and even and outer and max(inner) < _TIGHT * min(outer):
            yield index, end
        index = max(end, index + 1)


def _capital_starts(left: Word, right: Word) -> bool:
    """Is `left`'s last letter a capital standing alone that begins `right`, which holds a
    capital after its first letter ("F" + "iD", "A" + "DAM")? "A" + "function" and
    "A" + "Contributions" are two words however close."""
    a = left.text
    alone = len(a) == 1 or not a[-2].isalpha()
    return (
        alone
        and a[-1:].isupper()
        and any(c.isupper() for c in right.text[1:])
        and _letters_meet(left, right, single=False)
    )


def _letters_meet(left: Word, right: Word, *, single: bool) -> bool:
    """Do two words meet letter to letter on one baseline (both a single letter if
    `single`)?"""
    a, b = left.text, right.text
    if not (a[-1:].isalpha() and b[:1].isalpha()) or a.endswith(SOFT_HYPHEN):
        return False
    if single and (len(a) != 1 or len(b) != 1):
        return False
    # The right word's first letter against the left word: punctuation after it ("iD.")
    # may be set in another font, with another box.
    level = abs(left.box.y0 - right.lead.y0) <= _LEVEL * max(left.size, right.size)
    return level and left.upright and right.upright


def _joined(left: Word, right: Word) -> Word:
    box = left.box.union(right.box)
    return Word(left.text + right.text, box, max(left.size, right.size), left.lead, left.upright)
