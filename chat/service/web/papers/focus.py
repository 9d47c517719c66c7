"""The words an answer quoted, found inside the passage it cites: the boxes the reader marks
over the passage's own, so a reader sees the sentence or the table cell, not a whole page of
highlight.

An answer quotes a sentence (found by its letters and digits, as a chunk is found on its
pages) or a table's cells, written "row label · column header · value" (several joined by
"; ", after the table's name: "Table 1: Fusion-in-Decoder (large) · TriviaQA EM · 67.6").
A cell is the value printed in the row its label opens, under its column's header where the
header is found; its label is marked with it. Only what lies inside the passage's own boxes
counts (for a table, the band of the page its lines span), so the same words elsewhere on
the page are never marked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from ingest.index.records import Box
from ingest.pdf.alignment import find_text, keys_of

# The longest quote looked for (a sentence or a few cells; the route bounds it too).
MAX_QUOTE_CHARS = 1000
_CELL_SEPARATOR = " \u00b7 "
# "Table 1: " or "Table 2 (Model | NQ | TriviaQA): " before quoted cells or a row.
_TABLE_NAME = re.compile(r"^[^:\n]{1,80}?(?:\s\([^()\n]*\))?:\s+(?=\S)")
# Part of a box's height two boxes must share to be on one row.
_SAME_ROW = 0.5
# Rows below a table passage's last found line where its cells are still looked for.
_ROWS_BELOW = 3

Ranges = Sequence[tuple[int, int]]  # (first character index, count) on a page
PageBoxes = Callable[[int, Callable[[str], Ranges]], list[list[Box]]]


@dataclass(frozen=True)
class QuotedCell:
    label: str
    column: str
    value: str


def quoted_cells(quote: str) -> list[QuotedCell]:
    """The table cells a quote gives ("label · column · value"; several joined by "; "),
    none when it is not a quote of cells."""
    body = _TABLE_NAME.sub("", quote.strip(), count=1)
    cells: list[QuotedCell] = []
    for part in body.split("; "):
        pieces = part.strip().split(_CELL_SEPARATOR)
        if len(pieces) != 3 or not all(p.strip() for p in pieces):
            return []
        label, column, value = (p.strip() for p in pieces)
        cells.append(QuotedCell(label, column, value))
    return cells


def focus(quote: str, within: Sequence[Box], page_boxes: PageBoxes) -> list[Box]:
    """Where `quote` lies inside the boxes `within` (a passage's): the boxes to mark, none
    when it is not found there. `page_boxes(page, ranges_of)` reads a page's text, asks
    `ranges_of` for character ranges of it and answers each range's boxes."""
    quote = quote[:MAX_QUOTE_CHARS]
    cells = quoted_cells(quote)
    found: list[Box] = []
    for page in sorted({box.page for box in within}):
        own = [box for box in within if box.page == page]
        on_page = partial(page_boxes, page)
        if cells:
            found += _cells_on_page(cells, own, on_page)
        else:
            ranges = on_page(partial(_sentence_ranges, quote))
            found += [box for boxes in ranges for box in boxes if _inside(box, own)]
    return found


def _sentence_ranges(sentence: str, text: str) -> list[tuple[int, int]]:
    return [(start, end - start) for start, end in find_text(sentence, text)[0]]


def occurrences(needle: str, text: str) -> list[tuple[int, int]]:
    """Every place `needle` is written in `text` by its letters and digits, as (first
    character index, count), not inside a longer word or number ("67.6" is not in "167.65")."""
    needle_keys, _ = keys_of(needle)
    hay, where = keys_of(text)
    if not needle_keys:
        return []
    closing = needle[len(needle.rstrip(")]%")) :]  # printed after the last letter or digit
    found: list[tuple[int, int]] = []
    at = hay.find(needle_keys)
    while at >= 0:
        first, last = where[at], where[at + len(needle_keys) - 1]
        if _bounded(text, first, last):
            last += len(closing) if text.startswith(closing, last + 1) else 0
            found.append((first, last - first + 1))
        at = hay.find(needle_keys, at + 1)
    return found


def _bounded(text: str, first: int, last: int) -> bool:
    before = text[first - 1] if first > 0 else " "
    after = text[last + 1] if last + 1 < len(text) else " "
    follows = text[last + 2] if last + 2 < len(text) else " "
    decimal = after in ".," and follows.isdigit()  # "67.6" inside "67.65"
    return not before.isalnum() and before not in ".," and not after.isalnum() and not decimal


def _cells_on_page(
    cells: Sequence[QuotedCell],
    own: Sequence[Box],
    page_boxes: Callable[[Callable[[str], Ranges]], list[list[Box]]],
) -> list[Box]:
    """Each cell's label and value on one page, inside the passage's boxes `own`."""
    wanted: list[tuple[str, int, str]] = []  # (kind, cell index, text)
    for index, cell in enumerate(cells):
        wanted += [("label", index, cell.label), ("column", index, cell.column)]
        wanted.append(("value", index, cell.value))

    def ranges_of(text: str) -> list[tuple[int, int]]:
        places = [_places(kind, words, text) for kind, _, words in wanted]
        counts.extend(len(p) for p in places)
        return [r for p in places for r in p]

    counts: list[int] = []
    band = _band(own)
    boxes = page_boxes(ranges_of)
    found: dict[tuple[str, int], list[Box]] = {}
    at = 0
    for (kind, index, _), count in zip(wanted, counts, strict=True):
        merged = [_merged(b) for b in boxes[at : at + count] if b]
        found[(kind, index)] = [b for b in merged if _in_band(b, band)]
        at += count
    marked: list[Box] = []
    for index in range(len(cells)):
        parts = (found[(kind, index)] for kind in ("label", "column", "value"))
        marked += [box for box in _cell(*parts) if box not in marked]
    return marked


def _places(kind: str, words: str, text: str) -> list[tuple[int, int]]:
    """Where a cell's part is printed; a label not found whole is looked for without its
    last aside in parentheses (a table may print "(large)" in a cell of its own)."""
    found = occurrences(words, text)
    if found or kind != "label":
        return found
    shorter = re.sub(r"\s*\([^()]*\)\s*$", "", words)
    return occurrences(shorter, text) if shorter and shorter != words else []


def _cell(labels: list[Box], columns: list[Box], values: list[Box]) -> list[Box]:
    """The label and value of one cell: the value on a label's row, under the column's
    header when one is found (the nearest to it otherwise)."""
    best: tuple[float, Box, Box] | None = None
    for label in labels:
        for value in values:
            if value.x0 < label.x0 or not _same_row(label, value):
                continue
            distance = _column_distance(value, columns)
            if best is None or distance < best[0]:
                best = (distance, label, value)
    return [] if best is None else [best[1], best[2]]


def _column_distance(value: Box, columns: Sequence[Box]) -> float:
    """How far a value stands from the nearest box of its column's header, across;
    0 for a table whose header was not found."""
    middle = (value.x0 + value.x1) / 2
    return min((abs(middle - (c.x0 + c.x1) / 2) for c in columns if c.y1 <= value.y0), default=0)


def _same_row(a: Box, b: Box) -> bool:
    shared = min(a.y1, b.y1) - max(a.y0, b.y0)
    return shared >= _SAME_ROW * min(a.y1 - a.y0, b.y1 - b.y0)


def _merged(boxes: Sequence[Box]) -> Box:
    return Box(
        boxes[0].page,
        min(b.x0 for b in boxes),
        min(b.y0 for b in boxes),
        max(b.x1 for b in boxes),
        max(b.y1 for b in boxes),
    )


def _band(own: Sequence[Box]) -> tuple[float, float]:
    """The heights a table passage spans on its page, a few rows more below: where a
    table's lines were placed is less sure than a paragraph's (its rows repeat words and
    numbers), and a last row is the one most often missed."""
    heights = sorted(b.y1 - b.y0 for b in own)
    row = heights[len(heights) // 2]
    return min(b.y0 for b in own) - row, max(b.y1 for b in own) + _ROWS_BELOW * row


def _in_band(box: Box, band: tuple[float, float]) -> bool:
    middle = (box.y0 + box.y1) / 2
    return band[0] <= middle <= band[1]


def _inside(box: Box, own: Sequence[Box]) -> bool:
    """Whether most of `box` lies inside one of the passage's boxes."""
    area = max((box.x1 - box.x0) * (box.y1 - box.y0), 1e-9)
    for other in own:
        width = min(box.x1, other.x1) - max(box.x0, other.x0)
        height = min(box.y1, other.y1) - max(box.y0, other.y0)
        if width > 0 and height > 0 and width * height >= 0.5 * area:
            return True
    return False
