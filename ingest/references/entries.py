"""Split the lines of a references section into one string per entry.

A numbered list ("[12] ..." or "12. ...") starts an entry at each next number, also where
two columns' text ran one entry into the line of another. An author-year list starts one
at a line that begins with a name ("Danqi Chen, Adam Fisch", "Ba, J. L.,", "David A
Ferrucci. 2012.") when the entry so far is complete (it holds a year and its last line
ends a sentence) and the new one gives a year before the next line that would start one
(a page or column break inside an entry leaves its lines in order: they stay one entry).
An initial starts a name ("A. Radford,"), not an article; a one-word author ("OpenAI.
Chatgpt: ...") may start an entry too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BRACKET = re.compile(r"^\[(?P<n>\d{1,4})\]\s*")
_DOTTED = re.compile(r"^(?P<n>\d{1,4})\.\s+(?=[^\d\s])")
YEAR = re.compile(r"(?<![\d.])(?:19[5-9]\d|20[0-4]\d)(?![\d]|\.\d)")
# A line that begins an author list: a name followed by a comma, "and" or its year; or a
# surname and initials ("Ba, J. L.,"); particles ("van den Oord") allowed.
_NAME = r"(?:[A-Z][\w'\u2019\-]*\.?|[a-z]{1,5})"
_AUTHOR_START = re.compile(
    rf"^(?:[A-Z][\w'\u2019\-]*\.?(?:\s+{_NAME}){{0,4}}"
    r"(?:,|\s+and\s|\s*&|(?:\s+et\s+al)?\.\s+(?:19|20)\d\d)"
    rf"|[A-Z][\w'\u2019\-]+,\s+[A-Z]\.)"
)
# An author that is one name, an organisation's ("OpenAI. Chatgpt: ...", "Curation. Curation
# corpus base, 2020."): a word of letters, a period, and a capitalised word.
_ONE_NAME_AUTHOR = re.compile(r"^[A-Z][A-Za-z\-]+\.\s+[A-Z]")
_INITIAL = re.compile(r"^[A-Z]\.(?:-?[A-Za-z]\.)*,?$")
# One author by initials and surname: "A. Graves. Generating sequences ...".
_SOLE_AUTHOR = re.compile(r"^(?:[A-Z]\.-?\s*)+[A-Z][\w'\u2019\-]+\.\s+[A-Z]")
# The end of an entry's venue on a line of its own: words and a year, no period before it
# ("AI21 Labs, 2021.", "Preprint, 2021."), though it begins as a name may.
_VENUE_TAIL = re.compile(r"^[^.]*\b(?:19|20)\d\d[a-z]?\.?$")
# A line that ends in an initial ("G. van den Driessche, L. A.") ends no sentence.
_ENDS_IN_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.$")
_WORDS_NOT_NAMES = frozenset(
    ["In", "Proceedings", "Advances", "Conference", "Journal", "Transactions", "Association",
     "International", "Annual", "Workshop", "The", "A", "An", "Technical", "URL", "Available",
     "IEEE", "ACM", "Springer", "Curran", "MIT", "Nature", "Science", "Computational", "Neural",
     "Association", "Pages", "Volume", "Vol", "Online", "Retrieved", "Accessed", "Machine",
     "Empirical", "North", "European", "Findings", "Long", "Short", "Papers", "Language",
     "ArXiv", "arXiv", "CoRR", "Foundations", "Trends", "Communications"]
)  # fmt: skip
_ENDS_SENTENCE = re.compile(r"[.)\]\d]$")
_LOOKAHEAD_LINES = 4
# An entry runs over at most this many lines (PaLM's authors fill 17 of a column's).
_MAX_ENTRY_LINES = 30
_MAX_SKIPPED = 3
# Accents a PDF draws apart from their letters ("Oguz,  \u0306 Sewon", "Sedivy. `"): dropped
# with the space before them, so names read as words again.
_ACCENT_DEBRIS = re.compile(r"\s?[`\u00a8\u00b4\u02c6-\u02dd\u0300-\u036f]")
_INLINE_BRACKET = r"(?<=[.)\d])\s+(?=\[{n}\]\s)"


def split_entries(lines: Sequence[str]) -> list[str]:
    """The section's entries, each its lines joined with single spaces."""
    numbered = numbered_entries(lines)
    if numbered:
        return [entry for _, entry in numbered]
    return _author_year(_normalised(lines))


def numbered_entries(lines: Sequence[str]) -> list[tuple[int, str]]:
    """A numbered list's entries with the numbers printed before them; [] for a list that
    is not numbered."""
    lines = _normalised(lines)
    for marker in (_BRACKET, _DOTTED):
        if _numbers(lines, marker)[:3] == [1, 2, 3]:
            return _numbered(lines, marker)
    return []


def _normalised(lines: Sequence[str]) -> list[str]:
    return [" ".join(_ACCENT_DEBRIS.sub("", line).split()) for line in lines if line.strip()]


def _number(line: str, marker: re.Pattern[str]) -> int | None:
    match = marker.match(line)
    return int(match["n"]) if match else None


def _numbers(lines: Sequence[str], marker: re.Pattern[str]) -> list[int]:
    return [n for line in lines[:200] if (n := _number(line, marker)) is not None]


def _numbered(lines: Sequence[str], marker: re.Pattern[str]) -> list[tuple[int, str]]:
    """Entries at each line that starts with the next number (a few may be skipped where a
    column's first line was lost), with their numbers."""
    entries: list[list[str]] = []
    numbers: list[int] = []
    expected = 1
    for line in lines:
        pieces = _inline_entries(line, expected) if marker is _BRACKET else [line]
        for piece in pieces:
            number = _number(piece, marker)
            if number is not None and expected <= number <= expected + _MAX_SKIPPED:
                entries.append([marker.sub("", piece, count=1)])
                numbers.append(number)
                expected = number + 1
            elif entries:
                entries[-1].append(piece)
    return [(number, " ".join(entry)) for number, entry in zip(numbers, entries, strict=True)]


def _inline_entries(line: str, expected: int) -> list[str]:
    """A line cut where the next bracketed numbers start inside it ("... 2017. [4] Jianpeng")."""
    pieces = [line]
    for number in range(expected, expected + 3):
        parts = re.split(_INLINE_BRACKET.format(n=number), pieces[-1], maxsplit=1)
        if len(parts) == 2:
            pieces[-1:] = parts
    return pieces


def _author_year(lines: Sequence[str]) -> list[str]:
    entries: list[list[str]] = []
    for index, line in enumerate(lines):
        if not entries or _starts_entry(lines, index, entries[-1]):
            entries.append([line])
        else:
            entries[-1].append(line)
    return [" ".join(entry) for entry in entries]


def _starts_entry(lines: Sequence[str], index: int, current: list[str]) -> bool:
    if not _ends_sentence(current[-1]) or YEAR.search(" ".join(current)) is None:
        return False
    if not _may_start(lines[index]):
        return False
    first_lines = lines[index : index + _LOOKAHEAD_LINES]
    return any(
        YEAR.search(" ".join(part)) is not None
        for part in (first_lines, _lines_to_next_start(lines, index))
    )


def _may_start(line: str) -> bool:
    """Does the line begin as an entry does: with a name, an initial ("A. Radford") is
    one, or with a one-word author?"""
    first = line.split()[0]
    if _VENUE_TAIL.match(line):
        return False
    if _INITIAL.match(first):
        return _AUTHOR_START.match(line) is not None or _SOLE_AUTHOR.match(line) is not None
    if first.rstrip(",.") in _WORDS_NOT_NAMES:
        return False
    return _AUTHOR_START.match(line) is not None or _ONE_NAME_AUTHOR.match(line) is not None


def _lines_to_next_start(lines: Sequence[str], index: int) -> Sequence[str]:
    """The lines of an entry that would start at `index`: up to the next line that may
    start one after a line that ends a sentence ("... 2019. Natural" after 17 lines of
    names, a title and a venue that ran over a page or a column)."""
    end = index + 1
    while end < min(len(lines), index + _MAX_ENTRY_LINES) and not (
        _ends_sentence(lines[end - 1]) and _may_start(lines[end])
    ):
        end += 1
    return lines[index:end]


def _ends_sentence(line: str) -> bool:
    return _ENDS_SENTENCE.search(line) is not None and _ENDS_IN_INITIAL.search(line) is None
