"""Finding one text inside another when both went through different hands: by their
letters and digits alone (NFKC, case-folded; white space, punctuation, hyphens and
ligatures do not count), in pieces.

From each point of the text looked for, the longest run it shares with the
other, wherever that lies there (a passage moved elsewhere is found too);
short gaps between found pieces (a formula, a symbol spelled another way) are
taken with them, lone pieces too short to be told from chance are not.
`ingest.pdf.positions` uses it to find chunks on their PDF pages, the reader
to find an abstract passage in the abstract as the page shows it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# Letters and digits in a row that a piece must share with the page to count.
ANCHOR = 12
# Keys (letters and digits) between two found pieces that are highlighted with them.
GAP = 24
# A piece on its own (no neighbour within GAP) this short is taken for chance.
LONE_PIECE = 24
# The share of the chunk's letters and digits that must be found for any box at all.
MIN_COVERAGE = 0.3
# Anchors are indexed at every this many keys of the pages.
_STRIDE = 4
# How many places of one anchor are tried (common phrases occur often).
_CANDIDATES = 16

_ASCII_RUN = re.compile(r"[A-Za-z0-9]+|[^\x00-\x7f]")


def keys_of(text: str) -> tuple[str, list[int]]:
    """The letters and digits of `text`, NFKC and case-folded, with each one's index in it."""
    keys: list[str] = []
    where: list[int] = []
    for match in _ASCII_RUN.finditer(text):
        start = match.start()
        run = match.group()
        if run.isascii():
            keys.append(run.lower())
            where.extend(range(start, start + len(run)))
            continue
        for key in unicodedata.normalize("NFKC", run).casefold():
            if key.isalnum():
                keys.append(key)
                where.append(start)
    return "".join(keys), where


def _common_length(a: str, i: int, b: str, p: int) -> int:
    """How many characters `a[i:]` and `b[p:]` share from their start (galloping, then a
    binary search; every comparison is one slice compare)."""
    high = min(len(a) - i, len(b) - p)
    low, step = 0, ANCHOR
    while low + step <= high and a[i + low : i + low + step] == b[p + low : p + low + step]:
        low += step
        step *= 2
    top = min(high, low + step)
    while low < top:
        middle = (low + top + 1) // 2
        if a[i + low : i + middle] == b[p + low : p + middle]:
            low = middle
        else:
            top = middle - 1
    return low


class Haystack:
    """The letters and digits of some pages, with an index of their anchors: those that
    start every `_STRIDE` keys (a run of `ANCHOR + _STRIDE - 1` shared keys holds one)."""

    def __init__(self, keys: str) -> None:
        self.keys = keys
        self.anchors: dict[str, list[int]] = {}
        for p in range(0, len(keys) - ANCHOR + 1, _STRIDE):
            self.anchors.setdefault(keys[p : p + ANCHOR], []).append(p)

    def pieces(self, needle: str, low: int, high: int) -> list[tuple[int, int, int]]:
        """(needle start, haystack start, length) of the pieces of `needle` found in
        `keys[low:high]`, greedily from the needle's start."""
        if len(needle) < ANCHOR:  # too short for an anchor: the whole of it, or nothing
            at = self.keys.find(needle, low, high)
            return [(0, at, len(needle))] if at >= 0 else []
        found: list[tuple[int, int, int]] = []
        i = floor = 0
        while i <= len(needle) - ANCHOR:
            places = self.anchors.get(needle[i : i + ANCHOR], ())
            best, best_at = 0, -1
            for p in [p for p in places if low <= p <= high - ANCHOR][:_CANDIDATES]:
                length = min(_common_length(needle, i, self.keys, p), high - p)
                if length > best:
                    best, best_at = length, p
            if best < ANCHOR:
                i += 1
                continue
            # The anchor may start a few keys into the shared run: take those keys too.
            start, at = i, best_at
            while start > floor and at > low and needle[start - 1] == self.keys[at - 1]:
                start, at = start - 1, at - 1
            found.append((start, at, best + i - start))
            i = floor = i + best
        return found


def spans(
    pieces: Sequence[tuple[int, int, int]], breaks: Sequence[int] = ()
) -> list[tuple[int, int]]:
    """The haystack ranges to highlight: pieces in page order, near ones joined (never
    across one of `breaks`, where a page starts), lone short ones dropped."""
    ordered = sorted((p, p + length) for _, p, length in pieces)
    joined: list[list[int]] = []
    for start, end in ordered:
        crosses = any(joined[-1][1] < b <= start for b in breaks) if joined else True
        if joined and not crosses and start - joined[-1][1] <= GAP:
            joined[-1][1] = max(joined[-1][1], end)
        else:
            joined.append([start, end])
    longest = max((e - s for s, e in joined), default=0)
    return [(s, e) for s, e in joined if e - s >= min(LONE_PIECE, longest)]


def find_text(needle: str, haystack: str) -> tuple[list[tuple[int, int]], float]:
    """Where `needle` lies in `haystack` as (start, end) character ranges of the haystack,
    and the share of the needle's letters and digits found; the same matching as on pages."""
    needle_keys, _ = keys_of(needle)
    hay_keys, where = keys_of(haystack)
    if not needle_keys or not hay_keys:
        return [], 0.0
    pieces = Haystack(hay_keys).pieces(needle_keys, 0, len(hay_keys))
    coverage = sum(length for *_, length in pieces) / len(needle_keys)
    if coverage < MIN_COVERAGE:
        return [], coverage
    return [(where[s], where[e - 1] + 1) for s, e in spans(pieces)], coverage
