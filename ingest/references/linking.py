"""Which entry of a paper's reference list a citation mark names.

The list is the one ingest read (`read_references`, kept in the catalog in the order
printed), with each entry's text as the PDF prints it and, for a numbered list, its
number, read again from the pages' text after the last "References" heading: an entry of
that text is the stored reference whose title it holds. A number names the entry printed
with it; authors and a year name the entry whose first author has that surname (and whose
second, for a citation of two) and that year, "2020a" and "2020b" the first and second of
those in the list, or the ones that print the year so. A citation that fits no entry, or
more than one, names none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ingest.index.names.people import fold
from ingest.index.records import Reference
from ingest.pdf.alignment import keys_of
from ingest.references import MAX_REFERENCES
from ingest.references.entries import numbered_entries, split_entries
from ingest.references.fields import read_reference
from ingest.references.marks import Cite, Mark, find_marks

# The printed text kept of an entry (a list's last entry runs on into what follows it; an
# entry of PaLM's 67 authors takes a thousand characters before its title).
MAX_PRINTED_CHARS: Final = 1500
# A title shorter than this (letters and digits) is not looked for in the printed text.
_MIN_TITLE_KEYS: Final = 12
_HEADING: Final = re.compile(
    r"^[ \t]*(?:[\dA-Z]{1,2}\.?[ \t]+)?(?:References|REFERENCES|Bibliography|BIBLIOGRAPHY"
    r"|R ?E ?F ?E ?R ?E ?N ?C ?E ?S)[ \t]*\r?$",
    re.MULTILINE,
)
_BREAK: Final = "\ufffe"  # PDFium's mark of a word broken at a line's end
_NOT_NAME: Final = re.compile(r"[^\w\s]+|_")


@dataclass(frozen=True)
class Entry:
    """One entry of the list: its place among the stored references (None when the stored
    list lacks it), the number printed before it, its text as printed and its fields."""

    position: int | None
    number: int | None
    printed: str
    reference: Reference


class ReferenceList:
    """A paper's references, each findable by number or by authors and year."""

    def __init__(self, stored: Sequence[Reference], page_texts: Sequence[str]) -> None:
        heading = _heading(page_texts)
        lines = _section_lines(page_texts, heading) if heading else []
        numbered = numbered_entries(lines)[:MAX_REFERENCES]
        self.numbered = bool(numbered)
        if numbered:
            self.entries = _numbered(stored, numbered)
        else:
            printed = split_entries(lines)[:MAX_REFERENCES] if lines else []
            self.entries = _author_year(stored, printed)
        self._by_number = {e.number: e for e in self.entries if e.number is not None}
        # Where the list is printed: (first page, its first character, last page), 0-based.
        self._printed_at: tuple[int, int, int] | None = None
        if heading and self.entries:
            last = _page_holding(page_texts, heading[0], self.entries[-1].printed)
            self._printed_at = (*heading, last)

    def in_list(self, page: int, start: int) -> bool:
        """Is the character `start` of page `page` (1-based) inside the printed list (where
        an entry's "[12]" is its label, not a citation)?"""
        if self._printed_at is None:
            return False
        first, offset, last = self._printed_at
        return first <= page - 1 <= last and (page - 1 > first or start >= offset)

    def page_marks(self, page: int, text: str) -> list[tuple[Mark, list[Entry]]]:
        """The citation marks of page `page` (1-based) whose text is `text`, each with the
        entries it names (each once, in the order cited); a mark that names none, and the
        list's own labels, left out."""
        marks = []
        for mark in find_marks(text):
            found = (self.resolve(cite) for cite in mark.cites)
            entries = list(dict.fromkeys(entry for entry in found if entry is not None))
            if entries and not self.in_list(page, mark.start):
                marks.append((mark, entries))
        return marks

    def resolve(self, cite: Cite) -> Entry | None:
        """The entry a cite names, or None."""
        if cite.number is not None:
            return self._by_number.get(cite.number) if self.numbered else None
        if self.numbered or cite.year is None or not cite.surnames:
            return None
        return self._by_authors(cite)

    def _by_authors(self, cite: Cite) -> Entry | None:
        named = [e for e in self.entries if _names_authors(e.reference.authors, cite)]
        year = str(cite.year)
        fitting = [e for e in named if e.reference.year == cite.year]
        if not fitting:  # a year read wrongly from the entry: one that prints it
            fitting = [e for e in named if re.search(rf"\b{year}[a-z]?\b", e.printed)]
        if cite.suffix and len(fitting) > 1:
            printed = [e for e in fitting if re.search(rf"\b{year}{cite.suffix}\b", e.printed)]
            if len(printed) == 1:
                return printed[0]
            place = ord(cite.suffix) - ord("a")
            return fitting[place] if 0 <= place < len(fitting) else None
        if len(fitting) > 1:  # "(Graves, 2013)" beside "Graves, Mohamed, and Hinton 2013"
            fitting = _fewest_authors(fitting) if len(cite.surnames) == 1 and not cite.et_al else []
        return fitting[0] if len(fitting) == 1 else None


def _fewest_authors(entries: list[Entry]) -> list[Entry]:
    """The entries of the shortest author list, when one is shorter than all the others."""
    counts = [len(entry.reference.authors.split(", ")) for entry in entries]
    fewest = min(counts)
    return [e for e, n in zip(entries, counts, strict=True) if n == fewest]


def _names_authors(authors: str, cite: Cite) -> bool:
    """Does the entry's author list start with the cite's first surname, and hold its
    others?"""
    names = [_words(name) for name in authors.split(", ") if name.strip()]
    if not names:
        return False
    if not _holds(names[0], _words(cite.surnames[0])):
        return False
    rest = " ".join(names[1:])
    return all(_holds(rest, _words(surname)) for surname in cite.surnames[1:])


def _words(text: str) -> str:
    return " ".join(_NOT_NAME.sub(" ", fold(text.replace("-", ""))).split())


def _holds(name: str, surname: str) -> bool:
    return bool(surname) and f" {surname} " in f" {name} "


def _heading(page_texts: Sequence[str]) -> tuple[int, int] | None:
    """The page (0-based) of the last references heading and the character after its line."""
    for number in range(len(page_texts) - 1, -1, -1):
        found = list(_HEADING.finditer(page_texts[number]))
        if found:
            return number, found[-1].end()
    return None


def _section_lines(page_texts: Sequence[str], heading: tuple[int, int]) -> list[str]:
    """The lines after the references heading, to the end of the pages, a word broken over
    two lines whole again."""
    page, offset = heading
    texts = (page_texts[page][offset:], *page_texts[page + 1 :])
    return [line.replace(_BREAK, "") for text in texts for line in text.splitlines()]


def _page_holding(page_texts: Sequence[str], first: int, printed: str) -> int:
    """The first page from `first` on whose text holds the start of an entry's text."""
    start = keys_of(printed)[0][:40]
    for number in range(first, len(page_texts)):
        if start and start in keys_of(page_texts[number])[0]:
            return number
    return first


def _numbered(stored: Sequence[Reference], numbered: list[tuple[int, str]]) -> list[Entry]:
    positions = _positions(stored, [text for _, text in numbered])
    return [
        Entry(
            positions.get(index),
            number,
            text[:MAX_PRINTED_CHARS],
            stored[positions[index]] if index in positions else _read(text),
        )
        for index, (number, text) in enumerate(numbered)
    ]


def _author_year(stored: Sequence[Reference], printed: list[str]) -> list[Entry]:
    found = {place: index for index, place in _positions(stored, printed).items()}
    return [
        Entry(
            position,
            None,
            printed[found[position]][:MAX_PRINTED_CHARS] if position in found else _written(ref),
            ref,
        )
        for position, ref in enumerate(stored)
    ]


def _positions(stored: Sequence[Reference], printed: list[str]) -> dict[int, int]:
    """For each printed entry (by index) the stored reference whose title it holds."""
    keys = [keys_of(text)[0] for text in printed]
    found: dict[int, int] = {}
    taken: set[int] = set()
    start = 0
    for position, reference in enumerate(stored):
        title = keys_of(reference.title)[0]
        if len(title) < _MIN_TITLE_KEYS:
            continue
        order = [*range(start, len(keys)), *range(start)]
        index = next((i for i in order if i not in taken and title in keys[i]), None)
        if index is not None:
            found[index] = position
            taken.add(index)
            start = index + 1
    return found


def _read(text: str) -> Reference:
    return read_reference(text) or Reference(title=text[:MAX_PRINTED_CHARS])


def _written(reference: Reference) -> str:
    """An entry written from its fields, for one whose printed text was not found."""
    parts = [reference.authors, str(reference.year or ""), reference.title, reference.venue]
    return ". ".join(part for part in parts if part) + "."
