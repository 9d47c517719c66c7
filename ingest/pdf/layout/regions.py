"""Regions of a page that are not prose: figures and tables, found from its graphics.

A figure is an image, an embedded figure (a form object), or a cluster of
vector paths that draws something (curves, bars, filled shapes); text inside
or tightly around one is part of the figure. A table is the span between
horizontal rules of about the same width, or a run of lines cut into
several cells by wide gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from ingest.pdf.layout.geometry import Box, Line, Word

# A path thinner than this is a rule (a line drawn across), not a shape.
_RULE_THICKNESS = 2.0
# Paths closer than this belong to one drawing.
_CLUSTER_GAP = 4.0
_MIN_FIGURE_SIDE = 12.0
_MIN_FIGURE_LINES = 1.8
_MIN_SHAPE_AREA = 40.0
_MIN_TABLE_RULE = 60.0
_MAX_PAGE_SHARE = 0.7
# Two words further apart than this many font sizes sit in different cells.
CELL_GAP = 1.0
_MIN_TABLE_CELLS = 3
_MIN_TABLE_ROWS = 3
_MIN_PAIR_ROWS = 4  # lines of two short cells in a row that make a table
_PAIR_WORDS = 6  # the most words of a cell in a table of names and values
_PARAGRAPH = 3  # lines of prose in a row
_FULL = 0.9  # a justified line's share of its paragraph's width


@dataclass(frozen=True)
class Regions:
    figures: list[Box]
    tables: list[Box]
    rules: list[Box]  # horizontal rules, for footnote separators


def find_regions(
    figures: list[Box],
    paths: list[Box],
    lines: list[Line],
    size: float,
    page_area: float,
    captions: Sequence[Line] = (),
) -> Regions:
    """Figure and table boxes from a page's images, forms and paths; `size` is the body's.

    An image lower or narrower than two lines of text is no figure (images
    that mark up words, icons) and neither is one that covers most of the page,
    or one drawn around prose (its `captions` lines, set inside it, aside).
    """
    side = max(_MIN_FIGURE_SIDE, _MIN_FIGURE_LINES * size)
    shown = [
        box
        for box in figures
        if box.width >= side
        and box.height >= side
        and box.width * box.height < _MAX_PAGE_SHARE * page_area
    ]
    rules = [p for p in paths if p.height < _RULE_THICKNESS and p.width >= _RULE_THICKNESS]
    drawings = [
        cluster
        for cluster, shapes in _clusters(paths)
        if shapes
        and cluster.width >= side
        and cluster.height >= side
        and cluster.width * cluster.height < _MAX_PAGE_SHARE * page_area
    ]
    taken = {id(line) for line in captions}
    uncaptioned = [line for line in lines if id(line) not in taken]
    figures = [
        box for box in _merge([*shown, *drawings]) if not _frames_prose(box, uncaptioned, size)
    ]
    return Regions(figures, _ruled_tables(rules, lines), rules)


def _frames_prose(box: Box, lines: list[Line], size: float) -> bool:
    """Is `box` a frame drawn around text (a boxed example, a chat transcript) rather than
    a figure: does it hold a paragraph of prose set in the body's size?"""
    inner = sorted((line for line in lines if inside(line.box, box)), key=lambda ln: -ln.box.y1)
    prose = [_is_prose(line, box.width, _FULL) and abs(line.size - size) <= 0.5 for line in inner]
    return _has_paragraph(prose)


def _has_paragraph(prose: Sequence[bool]) -> bool:
    """Are `_PARAGRAPH` lines in a row, top to bottom, prose set full width (justified: the
    lines of an algorithm, ragged, are none)?"""
    return any(all(prose[i : i + _PARAGRAPH]) for i in range(len(prose) - _PARAGRAPH + 1))


def _is_prose(line: Line, width: float, share: float = 0.7) -> bool:
    """A line that reads as prose: one cell of six words or more across `share` of `width`."""
    return len(cells(line)) == 1 and line.box.width >= share * width and len(line.words) >= 6


def _is_shape(box: Box) -> bool:
    return (
        box.height >= _RULE_THICKNESS
        and box.width >= _RULE_THICKNESS
        and box.width * box.height >= _MIN_SHAPE_AREA
    )


def _clusters(paths: list[Box]) -> list[tuple[Box, int]]:
    """Boxes of paths that touch, each with how many of its paths are shapes."""
    clusters: list[tuple[Box, int]] = []
    for box in sorted(paths, key=lambda b: (-b.y1, b.x0)):
        grown = box.grown(_CLUSTER_GAP)
        shape = int(_is_shape(box))
        touching = [i for i, (c, _) in enumerate(clusters) if c.overlap(grown) > 0]
        merged, shapes = box, shape
        for index in reversed(touching):
            cluster, count = clusters.pop(index)
            merged, shapes = merged.union(cluster), shapes + count
        clusters.append((merged, shapes))
    return clusters


def _merge(boxes: list[Box]) -> list[Box]:
    """Boxes that overlap, merged until none do."""
    merged = list(boxes)
    changed = True
    while changed:
        changed = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                if merged[i].grown(1.0).overlap(merged[j]) > 0:
                    merged[i] = merged[i].union(merged.pop(j))
                    changed = True
                    break
            if changed:
                break
    return merged


def _ruled_tables(rules: list[Box], lines: list[Line]) -> list[Box]:
    """Tables between rules of one width: runs of slabs (the space between two rules)
    whose lines are not prose."""
    long = sorted((r for r in rules if r.width >= _MIN_TABLE_RULE), key=lambda r: -r.y1)
    stacks: list[list[Box]] = []
    for rule in long:
        for stack in stacks:
            top = stack[0]
            shared = min(top.x1, rule.x1) - max(top.x0, rule.x0)
            if shared >= 0.8 * max(top.width, rule.width):
                if rule.y1 < stack[-1].y0 - 0.5:
                    stack.append(rule)
                break
        else:
            stacks.append([rule])
    tables = []
    for stack in stacks:
        current: Box | None = None
        for upper, lower in pairwise(stack):
            slab = Box(min(upper.x0, lower.x0), lower.y1, max(upper.x1, lower.x1), upper.y0)
            if _is_tabular(slab, lines):
                current = slab if current is None else current.union(slab)
                continue
            if current is not None:
                tables.append(current)
            current = None
        if current is not None:
            tables.append(current)
    return tables


def _is_tabular(slab: Box, lines: list[Line]) -> bool:
    """Is the text between two rules a table's: few lines that read as prose, and no
    paragraph of them (the space between a running head's rule and a page foot's holds a
    table and the prose around it)?"""
    inner = sorted((line for line in lines if inside(line.box, slab)), key=lambda ln: -ln.box.y1)
    prose = [_is_prose(line, slab.width) for line in inner]
    justified = [_is_prose(line, slab.width, _FULL) for line in inner]
    return sum(prose) <= max(1, 0.3 * len(inner)) and not _has_paragraph(justified)


def cells(line: Line) -> list[list[Word]]:
    """The line's words grouped into cells: a wide gap between two words starts a cell."""
    groups: list[list[Word]] = [[line.words[0]]]
    for word in line.words[1:]:
        previous = groups[-1][-1]
        gap = word.box.x0 - previous.box.x1
        if gap > CELL_GAP * max(min(word.size, previous.size), 1.0):
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups


def celled_runs(lines: list[Line]) -> list[list[int]]:
    """Runs of consecutive lines (indices) that are each cut into several cells: three at
    least, or two short ones on `_MIN_PAIR_ROWS` lines in a row (a table of names and
    values: "Input embedding size | 256")."""
    runs: list[list[int]] = []
    for kind, least in ((_is_row, _MIN_TABLE_ROWS), (_is_pair, _MIN_PAIR_ROWS)):
        current: list[int] = []
        for index, line in enumerate([*lines, None]):
            if line is not None and kind(line):
                current.append(index)
                continue
            if len(current) >= least:
                runs.append(current)
            current = []
    taken: set[int] = set()
    kept = []
    for run in runs:  # rows of three cells first; a pair run keeps only lines left over
        if not taken.intersection(run):
            kept.append(run)
            taken.update(run)
    joined: list[list[int]] = []
    for run in sorted(kept):  # a table's pairs and rows that meet are one table
        if joined and joined[-1][-1] + 1 == run[0]:
            joined[-1].extend(run)
        else:
            joined.append(list(run))
    return joined


def _is_row(line: Line) -> bool:
    return len(cells(line)) >= _MIN_TABLE_CELLS


def _is_pair(line: Line) -> bool:
    """A line of two short cells: a name and its value."""
    found = cells(line)
    return len(found) == 2 and len(found[0]) <= _PAIR_WORDS and len(found[1]) <= _PAIR_WORDS


def inside(box: Box, region: Box, share: float = 0.5) -> bool:
    """Does at least `share` of `box` lie within `region`?"""
    area = max(box.width, 0.1) * max(box.height, 0.1)
    return box.overlap(region) >= share * area
