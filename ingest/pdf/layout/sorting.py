"""Sort a paper's lines into body prose, captions, tables, footnotes and debris.

`lay_out` reads the whole document's geometry first (the body's font size,
its columns, where the text block sits on the page, which lines repeat at
the page edges), then each page: margin text (the arXiv stamp, line
numbers) and page furniture (running heads, page numbers) go; lines in or
tightly around figures go; captions, tables and footnotes leave the body
flow as blocks of their own kind; the rest is the body, in reading order:
column by column within each band between full-width lines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import accumulate

from ingest.pdf.layout.asides import caption_label, captions, footnotes, is_label
from ingest.pdf.layout.furniture import Frame, frame, furniture
from ingest.pdf.layout.geometry import Box, Line, PageGeometry
from ingest.pdf.layout.grid import grid_lines
from ingest.pdf.layout.order import reading_order, rows
from ingest.pdf.layout.regions import Regions, celled_runs, find_regions, inside

_GUTTER_ZONE = (0.35, 0.65)  # where on the page's width a gutter may lie
_GUTTER_CROSSINGS = 0.15  # at most this share of body lines have a word across it
# Type this much smaller than the body's, outside footnotes, is a figure's or a table's.
_TINY = 0.7
_FIGURE_MARGIN = 0.5  # text this close to a figure (in body sizes) is part of it


@dataclass(frozen=True)
class Extra:
    """Text taken out of the body flow: a caption, a table or a footnote."""

    kind: str  # "caption", "table" or "footnote"
    label: str  # "Figure 3", "Table 2", or "" for a footnote
    page: int
    text: str


@dataclass
class PageLayout:
    body: list[str] = field(default_factory=list)
    extras: list[Extra] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class _Document(Frame):
    gutter: float | None = None


def lay_out(pages: list[PageGeometry | None]) -> list[PageLayout | None]:
    """Each page's body lines and extras; None stays None (a page read as plain text)."""
    readable = [page for page in pages if page is not None and page.lines]
    if not readable:
        return [None if page is None else PageLayout() for page in pages]
    document = _document(readable)
    return [
        None if page is None else _page(number, page, document)
        for number, page in enumerate(pages, start=1)
    ]


def _document(pages: list[PageGeometry]) -> _Document:
    weights: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            weights[line.size] += len(line.text)
    size = weights.most_common(1)[0][0]
    block = frame(pages, size)
    return _Document(**vars(block), gutter=_gutter(pages, size))


def _gutter(pages: list[PageGeometry], size: float) -> float | None:
    """The x of the white strip between two columns, or None for a one-column paper.

    Across the document's body-size words, the strip near the middle of the
    page that the fewest words cover; it must be covered by few of them and
    have many lines on either side.
    """
    width = round(pages[0].width)
    cover = [0] * (width + 2)
    lines = left = right = 0
    middle = width / 2
    for page in pages:
        for line in page.lines:
            if abs(line.size - size) > 1.0:
                continue
            lines += 1
            left += line.box.x0 < middle - 2 * size
            right += line.box.x1 > middle + 2 * size
            for word in line.words:
                # A word set off the page's edge (or a later, wider page's) covers its edge.
                start = min(max(int(word.box.x0), 0), width + 1)
                end = min(max(int(word.box.x1) + 1, 0), width + 1)
                cover[start] += 1
                cover[end] -= 1
    covered = list(accumulate(cover))
    low, high = int(_GUTTER_ZONE[0] * width), int(_GUTTER_ZONE[1] * width)
    best = min(range(low, high), key=lambda x: (covered[x], abs(x - middle)))
    if covered[best] > _GUTTER_CROSSINGS * lines or min(left, right) < 0.3 * lines:
        return None
    # The strip's middle: from the best x, as far as it stays as empty on both sides.
    start = end = best
    while start > low and covered[start - 1] <= covered[best]:
        start -= 1
    while end < high and covered[end + 1] <= covered[best]:
        end += 1
    return (start + end) / 2


def _page(number: int, page: PageGeometry, document: _Document) -> PageLayout:
    layout = PageLayout()
    lines = []
    for line, reason in zip(page.lines, furniture(page, document), strict=True):
        if reason:
            layout.dropped[reason] += 1
        else:
            lines.append(line)
    runs = captions(lines, document.size)
    for run in runs:
        layout.extras.append(_extra("caption", number, run, caption_label(run)))
    taken = {id(line) for run in runs for line in run}
    captioned = [line for run in runs for line in run]
    area = page.width * page.height
    regions = find_regions(page.figures, page.paths, lines, document.size, area, captioned)
    figures = [box.grown(_FIGURE_MARGIN * document.size) for box in regions.figures]
    tables = [box.grown(0.3 * document.size) for box in regions.tables]
    column = (document.right - document.left) / (1 if document.gutter is None else 2)
    body: list[Line] = []
    ruled: dict[int, list[Line]] = {}
    for line in lines:
        if id(line) in taken:
            continue
        if any(inside(line.box, box) for box in figures) or is_label(
            line, regions, document.size, column
        ):
            layout.dropped["figure_lines_dropped"] += 1
        elif (table := _region(line, tables)) is not None:
            ruled.setdefault(table, []).append(line)
        else:
            body.append(line)
    for table_lines in ruled.values():
        layout.extras.append(_extra("table", number, rows(table_lines)))
    wide = [
        box
        for box in [*figures, *tables]
        if document.gutter is not None and box.x0 < document.gutter < box.x1
    ]
    _body(number, reading_order(body, document.gutter, wide), regions, document, layout)
    return layout


def _region(line: Line, regions: list[Box]) -> int | None:
    return next((i for i, box in enumerate(regions) if inside(line.box, box)), None)


def _body(
    number: int,
    ordered: list[tuple[int, Line]],
    regions: Regions,
    document: _Document,
    layout: PageLayout,
) -> None:
    """The body lines in order, less the tables and footnotes among them."""
    kinds = ["body"] * len(ordered)
    for cell_run in celled_runs([line for _, line in ordered]):
        for index in cell_run:
            kinds[index] = "table"
    height = document.top - document.bottom
    for column in sorted({column for column, _ in ordered}):
        indices = [i for i, (c, _) in enumerate(ordered) if c == column and kinds[i] == "body"]
        notes = footnotes([ordered[i][1] for i in indices], regions, document.size, height)
        for index in indices[len(indices) - notes :] if notes else []:
            kinds[index] = "footnote"
    for index, (_, line) in enumerate(ordered):
        if kinds[index] == "body" and line.size < _TINY * document.size:
            kinds[index] = "figure"
    index = 0
    while index < len(ordered):
        kind, run = kinds[index], [ordered[index][1]]
        index += 1
        while index < len(ordered) and kinds[index] == kind:
            run.append(ordered[index][1])
            index += 1
        if kind == "body":
            layout.body.extend(line.text for line in run)
        elif kind == "figure":
            layout.dropped["figure_lines_dropped"] += len(run)
        else:
            layout.extras.append(_extra(kind, number, run))


def _extra(kind: str, number: int, run: list[Line], label: str = "") -> Extra:
    lines = grid_lines(run) if kind == "table" else [line.text for line in run]
    return Extra(kind, label, number, "\n".join(lines))
