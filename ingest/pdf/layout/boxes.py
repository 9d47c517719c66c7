"""The pieces a page's layout is read into: boxes, words and lines, in PDF points.

Coordinates grow rightwards and upwards, as in PDF space. A page whose text
cannot be placed raises `LayoutUnreadable`.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

from ingest.errors import PaperchatError


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
