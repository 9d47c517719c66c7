"""Text beside the body: captions, footnotes, and the labels drawn around figures.

Captions are found in the order PDFium reads the page, where a caption's
lines follow each other: a line that starts a paragraph with "Figure 3:",
"Table 2.", "Fig. 4 |" and the lines set right under it. Footnotes are the
small type at the foot of a column, from the first line that starts with a
mark (a symbol, or a raised or smaller first character) or sits under a
short rule.
"""

from __future__ import annotations

import re

from ingest.pdf.layout.geometry import Box, Line
from ingest.pdf.layout.regions import Regions, cells, inside

CAPTION_RE = re.compile(
    r"^(?P<label>(?:Figure|Fig\.|FIGURE|Table|TABLE|Tab\.)\s*(?:[A-Z]?\d+|[IVX]+)(?:\.\d+)?)"
    r"\s*(?:[:.|\u2014\u2013]|$)"
)
_LABEL_RE = re.compile(r"(\w+)\.?\s*(\S+)")
_MARK_RE = re.compile(r"^[*\u2020\u2021\u00a7\u00b6\u2217\u22c6]")
_CAPTION_GAP = 0.7  # caption lines follow each other closer than this many sizes
_SMALLER = 0.5  # footnotes are set at least this many points smaller than the body
_MAX_NOTES_SHARE = 0.4  # footnotes fill less of a column than this
_LABEL_REACH = 1.6  # lines this close to a figure (in sizes) may be its labels


def captions(lines: list[Line], size: float) -> list[list[Line]]:
    """Each caption's lines, in PDFium's order of the page's lines."""
    found: list[list[Line]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        previous = lines[index - 1] if index else None
        if CAPTION_RE.match(line.text) and _starts_paragraph(previous, line, size):
            run = [line]
            index += 1
            while index < len(lines) and _continues(run, lines[index], size):
                run.append(lines[index])
                index += 1
            found.append(run)
            continue
        index += 1
    return found


def caption_label(run: list[Line]) -> str:
    """The caption's label in one spelling: "Fig. 4" and "FIGURE 4" are "Figure 4"."""
    match = CAPTION_RE.match(run[0].text)
    label = _LABEL_RE.match(match["label"]) if match else None
    if label is None:
        return ""
    name, number = label.groups()
    return f"{'Table' if name.lower().startswith('tab') else 'Figure'} {number}"


def _gap(above: Line, below: Line) -> float:
    return above.box.y0 - below.box.y1


def _starts_paragraph(previous: Line | None, line: Line, size: float) -> bool:
    """Is `line` the first of a paragraph: apart from the line before, or after one that
    ends a sentence, is set in another size, or is a table's row?"""
    if previous is None or not -0.5 * size <= _gap(previous, line) <= _CAPTION_GAP * size:
        return True
    if abs(previous.size - line.size) > 0.5 or len(cells(previous)) >= 3:
        return True
    return previous.text.rstrip()[-1:] in ".:!?"


def _continues(run: list[Line], line: Line, size: float) -> bool:
    if CAPTION_RE.match(line.text):
        return False
    above, first = run[-1].box, run[0].box
    gap = above.y0 - line.box.y1
    shared = min(first.x1, line.box.x1) - max(first.x0, line.box.x0)
    return -0.5 * size <= gap <= _CAPTION_GAP * size and shared >= 0.5 * line.box.width


def is_label(line: Line, regions: Regions, size: float, column: float) -> bool:
    """A line right beside a figure, each of its cells over one: a label, tick values, a legend.

    A line as wide as the column in one piece is prose, however near it sits.
    """
    if line.text.rstrip()[-1:] in ".;?!" and len(line.words) > 3:
        return False
    parts = cells(line)
    if len(parts) == 1 and line.box.width >= 0.6 * column:
        return False
    reach = _LABEL_REACH * size
    near = [box.grown(reach) for box in regions.figures if line.box.overlap(box.grown(reach)) > 0]
    return bool(near) and all(
        any(_over(cell[0].box.x0, cell[-1].box.x1, box) for box in near) for cell in parts
    )


def _over(x0: float, x1: float, box: Box) -> bool:
    shared = min(x1, box.x1) - max(x0, box.x0)
    return shared >= 0.5 * (x1 - x0)


def footnotes(column: list[Line], regions: Regions, size: float, height: float) -> int:
    """How many of a column's last lines are footnotes."""
    block: list[Line] = []
    for line in reversed(column):
        if line.size > size - _SMALLER:
            break
        block.insert(0, line)
    # The block may hold several notes: it starts where the first one does.
    while block and not _starts_note(block[0], regions, size):
        block.pop(0)
    if not block or block[0].box.y1 - block[-1].box.y0 > _MAX_NOTES_SHARE * height:
        return 0
    return len(block)


def _starts_note(line: Line, regions: Regions, size: float) -> bool:
    lead = line.words[0].lead
    low, _ = line.core
    if _MARK_RE.match(line.text) or lead.height < 0.85 * line.size or lead.y0 > low + 1.0:
        return True
    above = Box(line.box.x0 - 2, line.box.y1, line.box.x1, line.box.y1 + 1.5 * size)
    return any(rule.overlap(above) > 0 or inside(rule, above) for rule in regions.rules)
