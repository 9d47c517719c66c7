"""Reading order of a page's lines: column by column within bands between full-width lines.

A two-column page is read as bands: lines that cross the gutter (a title, a
wide figure or table, a full-width caption) each end a band; within a band
the left column is read top to bottom, then the right. A left column's line
that runs only a little past the gutter (an unbroken URL in a reference) stays
in its column. Pieces of one
baseline (a line broken at a superscript or an inline formula) are joined
left to right.
"""

from __future__ import annotations

import statistics

from ingest.pdf.layout.geometry import Box, Line
from ingest.pdf.layout.regions import inside

FULL, LEFT, RIGHT = 0, 1, 2
# Pieces of one baseline further apart than this many sizes are not joined.
_JOIN_GAP = 2.5
_TALL = 1.6
# A line from the left half of the left column that ends within this share of the right
# column's width past the gutter overruns its column; it spans neither.
_OVERRUN_SHARE = 0.15


def rows(lines: list[Line]) -> list[Line]:
    """Lines top to bottom, pieces that share a baseline and sit close joined left to right.

    A piece taller than a line (a big operator, a stacked fraction) joins the
    row nearest its middle and never makes two rows one.
    """
    if not lines:
        return []
    typical = statistics.median(line.core[1] - line.core[0] for line in lines)
    tall = [ln for ln in lines if ln.core[1] - ln.core[0] > _TALL * typical]
    groups: list[tuple[tuple[float, float], list[Line]]] = []
    for line in sorted((ln for ln in lines if ln not in tall), key=lambda ln: -ln.core[1]):
        if groups:
            (bottom, top), members = groups[-1]
            low, high = line.core
            shared = min(top, high) - max(bottom, low)
            if shared >= 0.5 * min(top - bottom, high - low):
                members.append(line)
                continue
        groups.append((line.core, [line]))
    for line in tall:
        middle = sum(line.core) / 2
        nearest = min(groups, key=lambda g: abs(sum(g[0]) / 2 - middle), default=None)
        if nearest is not None and nearest[0][0] <= middle <= nearest[0][1] + typical:
            nearest[1].append(line)
        else:
            groups.append((line.core, [line]))
            groups.sort(key=lambda g: -g[0][1])
    return [row for _, members in groups for row in _join(members)]


def _join(members: list[Line]) -> list[Line]:
    if len(members) == 1:
        return members
    pieces = sorted(members, key=lambda ln: ln.box.x0)
    joined: list[list[Line]] = [[pieces[0]]]
    for piece in pieces[1:]:
        last = joined[-1][-1]
        if piece.box.x0 - last.box.x1 > _JOIN_GAP * max(last.size, piece.size):
            joined.append([piece])
        else:
            joined[-1].append(piece)
    return [
        group[0]
        if len(group) == 1
        else Line(sorted((w for m in group for w in m.words), key=lambda w: w.box.x0))
        for group in joined
    ]


def _split_at_gutter(line: Line, gutter: float) -> list[Line]:
    left = [w for w in line.words if w.box.x1 <= gutter]
    right = [w for w in line.words if w.box.x1 > gutter]
    if left and right and right[0].box.x0 > gutter and left[-1].box.x1 < gutter:
        return [Line(left), Line(right)]
    return [line]


def _overruns(box: Box, gutter: float, edges: tuple[float, float]) -> bool:
    """Is this a left column's line that runs a little past the gutter: it starts in the
    left half of the column and ends well short of the right column's middle?"""
    left, right = edges
    return box.x0 < (left + gutter) / 2 and box.x1 < gutter + _OVERRUN_SHARE * (right - gutter)


def reading_order(
    lines: list[Line], gutter: float | None, wide: list[Box]
) -> list[tuple[int, Line]]:
    """(column, line) in reading order; lines inside a region in `wide` count as full width."""
    if gutter is None:
        return [(FULL, line) for line in rows(lines)]
    pieces = [piece for line in lines for piece in _split_at_gutter(line, gutter)]
    ordered: list[tuple[int, Line]] = []
    band: dict[int, list[Line]] = {FULL: [], LEFT: [], RIGHT: []}

    def flush(columns: tuple[int, ...]) -> None:
        for column in columns:
            ordered.extend((column, row) for row in rows(band[column]))
            band[column] = []

    edges = (
        min((ln.box.x0 for ln in pieces), default=0.0),
        max((ln.box.x1 for ln in pieces), default=0.0),
    )
    for line in sorted(pieces, key=lambda ln: -ln.box.y1):
        box = line.box
        overruns = _overruns(box, gutter, edges)
        crosses = box.x0 < gutter - 2 and box.x1 > gutter + 2 and not overruns
        if crosses or any(inside(box, region) for region in wide):
            flush((LEFT, RIGHT))
            band[FULL].append(line)
        else:
            flush((FULL,))
            band[LEFT if box.x1 <= gutter + 2 or overruns else RIGHT].append(line)
    flush((FULL, LEFT, RIGHT))
    return ordered
