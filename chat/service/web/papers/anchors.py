"""A note's passage found again on its paper's reader pages by the words it quotes: on the
page it was made on first, then on the pages nearest it, so a paper read anew (its text
moved to another page, or its boxes shifted) keeps its notes on their words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ingest.index.records import Box
from ingest.pdf.alignment import find_text

# The share of a quote's letters and digits a page must hold, in order, to be its place.
MIN_ANCHOR_COVERAGE = 0.85
Ranges = list[tuple[int, int]]
PageBoxes = Callable[[int, Ranges], list[Box]]


@dataclass(frozen=True)
class Place:
    """Where a quote is now: its page (1-based) and its boxes there."""

    page: int
    boxes: list[Box]


def _pages_nearest(page: int, pages: int) -> list[int]:
    """Every page from 1 to `pages`, `page` first, then by their distance from it."""
    return sorted(range(1, pages + 1), key=lambda number: (abs(number - page), number))


def find_quote(quote: str, page: int, texts: Sequence[str]) -> tuple[int, Ranges] | None:
    """The page (1-based) holding `quote`, the nearest to `page`, and its character ranges
    there; None when no page holds enough of its words."""
    for number in _pages_nearest(page, len(texts)):
        ranges, coverage = find_text(quote, texts[number - 1])
        if ranges and coverage >= MIN_ANCHOR_COVERAGE:
            return number, ranges
    return None


def relocate(quote: str, page: int, texts: Sequence[str], page_boxes: PageBoxes) -> Place | None:
    """Where `quote` is now, its boxes read by `page_boxes`; None when it is not found."""
    found = find_quote(quote, page, texts)
    if found is None:
        return None
    number, ranges = found
    return Place(page=number, boxes=page_boxes(number, ranges))
