"""Page furniture: what a page prints around its text block rather than in it.

Text set sideways (the arXiv stamp), lines beyond the text block's left and
right edges (line numbers), lines at a page's top or bottom that repeat across
the document, digits aside (running heads and feet), page numbers, and lines
set above or below the text block (a conference's footer). The block's top and
bottom are where most pages' text begins and ends, so a page set a line longer
than most has its last line below that bottom: a line outside the block that
continues the block's text at its line spacing, in its type, stays.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from ingest.pdf.layout.geometry import Line, PageGeometry

_PAGE_NUMBER_RE = re.compile(r"(?i)^(?:page\s*)?[-\u2013 ]*\d{1,4}[-\u2013 ]*(?:(?:of|/)\s*\d+)?$")
_EDGE_SHARE = 0.15
_MIN_REPEATS = 3
_REPEAT_SHARE = 0.2
# A line outside the block this close (in its sizes) to a kept line of its type continues it;
# a line at the body's size, as far as a paragraph's space, starts the next paragraph.
_LINE_SPACING = 0.6
_PARAGRAPH_SPACING = 1.2
_OUTSIDE = "outside"
_OUTSIDE_REASON = "header_footer_lines_dropped"


@dataclass(frozen=True)
class Frame:
    """Where a document's text block sits on its pages, its body size and its repeated
    edge lines (digits masked)."""

    size: float
    left: float
    right: float
    bottom: float
    top: float
    repeated: frozenset[str]


def frame(pages: list[PageGeometry], size: float) -> Frame:
    """The text block of `pages`, whose body is set in `size`."""
    body = [
        line
        for page in pages
        for line in page.lines
        if abs(line.size - size) <= 1.0 and line.box.width > 0.25 * page.width
    ] or [line for page in pages for line in page.lines]
    lefts = sorted(line.box.x0 for line in body)
    rights = sorted(line.box.x1 for line in body)
    repeated = _repeated(pages)
    kept = [[ln for ln in p.lines if not _is_repeated(ln, p, repeated)] for p in pages]
    bottoms = [min(ln.box.y0 for ln in lines) for lines in kept if lines]
    tops = [max(ln.box.y1 for ln in lines) for lines in kept if lines]
    return Frame(
        size=size,
        left=lefts[len(lefts) // 50],
        right=rights[-1 - len(rights) // 50],
        bottom=statistics.median(bottoms) if bottoms else 0.0,
        top=statistics.median(tops) if tops else pages[0].height,
        repeated=repeated,
    )


def edge_key(line: Line, page: PageGeometry) -> str | None:
    """The line's text with digits masked, when it sits in the top or bottom band of a page."""
    box = line.box
    if box.y0 < (1 - _EDGE_SHARE) * page.height and box.y1 > _EDGE_SHARE * page.height:
        return None
    return re.sub(r"\d+", "#", " ".join(line.text.split()).lower())


def _repeated(pages: list[PageGeometry]) -> frozenset[str]:
    threshold = max(_MIN_REPEATS, round(len(pages) * _REPEAT_SHARE))
    seen: Counter[str] = Counter()
    for page in pages:
        seen.update({key for line in page.lines if (key := edge_key(line, page))})
    return frozenset(
        key
        for key, count in seen.items()
        if count >= threshold and sum(c.isalpha() for c in key) >= 4
    )


def _is_repeated(line: Line, page: PageGeometry, repeated: frozenset[str]) -> bool:
    key = edge_key(line, page)
    return key is not None and (key in repeated or bool(_PAGE_NUMBER_RE.match(line.text)))


def furniture(page: PageGeometry, block: Frame) -> list[str]:
    """For each of the page's lines, why it is furniture (the name of the count it adds
    to), or "" for a line of the text."""
    reasons = [_reason(line, page, block) for line in page.lines]
    kept = [line for line, reason in zip(page.lines, reasons, strict=True) if not reason]
    outside = [i for i, reason in enumerate(reasons) if reason == _OUTSIDE]
    # Nearest the block first, so that a run of lines past its edge is kept line by line.
    below = sorted((i for i in outside if page.lines[i].box.y1 < block.bottom),
                   key=lambda i: -page.lines[i].box.y1)  # fmt: skip
    above = sorted((i for i in outside if i not in below), key=lambda i: page.lines[i].box.y0)
    for index in [*below, *above]:
        line = page.lines[index]
        if _continues(line, kept, block, downwards=index in below):
            reasons[index] = ""
            kept.append(line)
        else:
            reasons[index] = _OUTSIDE_REASON
    return reasons


def _reason(line: Line, page: PageGeometry, block: Frame) -> str:
    box, size = line.box, block.size
    if not any(word.upright for word in line.words):
        return "sideways_lines_dropped"
    if box.x1 < block.left - 0.5 * size or box.x0 > block.right + 0.5 * size:
        return "margin_lines_dropped"
    key = edge_key(line, page)
    if key is not None and _PAGE_NUMBER_RE.match(line.text):
        return "page_number_lines_dropped"
    if key is not None and key in block.repeated:
        return "header_footer_lines_dropped"
    if key is not None and (box.y1 < block.bottom or box.y0 > block.top):
        return _OUTSIDE
    return ""


def _continues(line: Line, kept: list[Line], block: Frame, *, downwards: bool) -> bool:
    """Does `line`, past the block's edge, follow the nearest kept line on its way to the
    block as the next line of its text does?"""

    def gap(other: Line) -> float:
        return other.box.y0 - line.box.y1 if downwards else line.box.y0 - other.box.y1

    beside = [
        other
        for other in kept
        if gap(other) >= -1.0
        and min(other.box.x1, line.box.x1) - max(other.box.x0, line.box.x0) > 0
    ]
    if not beside:
        return False
    nearest, *further = sorted(beside, key=gap)
    # The two kept lines nearest, not the one: a line's size can be read off one odd glyph.
    if all(abs(other.size - line.size) > 1.0 for other in [nearest, *further[:1]]):
        return False
    if gap(nearest) <= _LINE_SPACING * line.size:
        return True
    body = abs(line.size - block.size) <= 0.5 and abs(nearest.size - block.size) <= 0.5
    return body and gap(nearest) <= _PARAGRAPH_SPACING * block.size
