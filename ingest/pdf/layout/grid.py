"""A table's lines as rows of one width: each cell under the column it stands over.

A table chunk is read as a header and rows of cells joined by " | "
(`chat/rag/extractive/tables.py`), so that a value can be quoted with its
row label and column header ("Fusion-in-Decoder (large) · TriviaQA · 67.6").
PDFs set a header over several columns once ("TriviaQA" over its two test
sets) and leave cells empty ("-" aside): cut into cells at wide gaps, those
lines have fewer cells than the rows. The columns are where the widest lines'
cells stand; a line of names (a header) gives each of its cells every column
whose middle lies under it, repeated in each; a line with numbers puts each
cell in the column it overlaps most (or the nearest), the others left empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from ingest.pdf.layout.boxes import Line, Word
from ingest.pdf.layout.regions import cells

_NUMBER = re.compile(r"^[-+\u2212~\u2248]?\.?\d")
_MIN_GRID_LINES = 2  # lines of the full width that the columns are read from


def grid_lines(run: Sequence[Line]) -> list[str]:
    """The table's lines, each as its cells joined by " | ", as many cells on each line as
    the widest have; the lines as they are cut when no columns can be read."""
    rows = [cells(line) for line in run]
    plain = [_joined([_text(c) for c in row]) for row in rows]
    width = max((len(row) for row in rows), default=0)
    full = [row for row in rows if len(row) == width]
    if width < 2 or len(full) < _MIN_GRID_LINES:
        return plain
    columns = [
        (min(row[i][0].box.x0 for row in full), max(row[i][-1].box.x1 for row in full))
        for i in range(width)
    ]
    if any(left[1] > right[0] for left, right in pairwise(columns)):
        return plain  # the widest lines do not agree on their columns
    out = []
    for row in rows:
        if len(row) == width:
            out.append(_joined([_text(c) for c in row]))
        elif _is_header(row):
            out.append(_joined(_spread(row, columns)))
        else:
            out.append(_joined(_placed(row, columns)))
    return out


def _spread(row: list[list[Word]], columns: list[tuple[float, float]]) -> list[str]:
    """A header's cells, each in every column whose middle lies within its reach: its own
    extent and half the gaps to the cells beside it."""
    spans = [(c[0].box.x0, c[-1].box.x1) for c in row]
    reach = []
    for i, (x0, x1) in enumerate(spans):
        left_gap = x0 - spans[i - 1][1] if i else (spans[1][0] - x1 if len(spans) > 1 else 0.0)
        right_gap = spans[i + 1][0] - x1 if i + 1 < len(spans) else left_gap
        reach.append((x0 - left_gap / 2, x1 + right_gap / 2))
    held: list[list[str]] = [[] for _ in columns]
    for i, (r0, r1) in enumerate(reach):
        under = [j for j, (c0, c1) in enumerate(columns) if r0 <= (c0 + c1) / 2 <= r1]
        # A name over no column's middle ("Model" set high beside a two-line header) goes
        # to the column it stands nearest.
        for j in under or [_nearest(spans[i], columns)]:
            held[j].append(_text(row[i]))
    return [" ".join(texts) for texts in held]


def _nearest(span: tuple[float, float], columns: list[tuple[float, float]]) -> int:
    """The column `span` overlaps most, else the one whose middle is nearest its own."""
    x0, x1 = span
    overlaps = [min(x1, c1) - max(x0, c0) for c0, c1 in columns]
    best = max(range(len(columns)), key=lambda i: overlaps[i])
    if overlaps[best] > 0:
        return best
    middle = (x0 + x1) / 2
    return min(range(len(columns)), key=lambda i: abs(sum(columns[i]) / 2 - middle))


def _placed(row: list[list[Word]], columns: list[tuple[float, float]]) -> list[str]:
    """A row's cells, each in the column it overlaps most, else the nearest; two in one
    column are joined."""
    out: list[list[str]] = [[] for _ in columns]
    for cell in row:
        out[_nearest((cell[0].box.x0, cell[-1].box.x1), columns)].append(_text(cell))
    return [" ".join(texts) for texts in out]


def _is_header(row: list[list[Word]]) -> bool:
    """A line of names, not a row of values."""
    return not is_row([_text(cell) for cell in row])


def is_row(texts: Sequence[str]) -> bool:
    """Whether a table line's cells are a row of values: a cell after its first starts with
    a number. The lines before a table's first row are its header."""
    return any(_NUMBER.match(text.strip()) for text in texts[1:])


def _text(cell: list[Word]) -> str:
    return " ".join(word.text for word in cell)


def _joined(texts: list[str]) -> str:
    return " | ".join(texts)
