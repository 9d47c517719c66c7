"""The in-text citation marks of a PDF page: where its text cites its reference list.

Three forms are read from a page's text (one character a PDFium character index, so a
mark's place is the range of characters its boxes are drawn from): numbers in brackets
("[12]", "[3-5]", "[3, 7, 9]"), an author and a year in parentheses or brackets ("(Lewis et
al., 2020)", "(Lewis et al., 2020; Guu et al., 2020a)", one mark each), and a narrative
author with the year after it ("Karpukhin et al. (2020)"). What a mark cites is only read
here; `ingest.references.linking` tells which entry of the paper's list it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final

# The most numbers one bracket may cite: a range is cut there ("[1-1000]" cites 1 to 64).
MAX_NUMBERS: Final = 64
# A parenthesis longer than this is prose, not a list of citations.
_MAX_GROUP_CHARS: Final = 400
# PDFium writes a line's end as "\r\n" and a word broken over lines with U+FFFE.
_BREAK: Final = "\ufffe"
# An accent drawn apart from its letter, and the space before it.
_ACCENT: Final = re.compile(r"[ \t]?[`\u00a8\u00b4\u02c6-\u02dd\u0300-\u036f]")
_NUMBER_LIST: Final = r"\d{1,4}(?:\s*[-\u2013\u2014,;]\s*\d{1,4})*"
_BRACKET: Final = re.compile(rf"\[\s*(?P<list>{_NUMBER_LIST})\s*\]")
_PARTICLE: Final = r"(?:(?:[Vv][ao]n|[Dd][eiu]|[Dd]e[rn]|[Dd]os|[Dd]el|[Ll][ae])\s+){0,3}"
# A surname: a capital, letters (some lower case), hyphens and apostrophes ("Ming-Wei",
# "O'Neil"); a word broken over two lines keeps its break.
_SURNAME: Final = rf"{_PARTICLE}[^\W\d_a-z][\w'\u2019\-{_BREAK}]*"
_AUTHORS: Final = (
    rf"(?P<first>{_SURNAME})"
    rf"(?:(?P<etal>\s+et\s*al\.?)"
    rf"|(?P<more>(?:\s*,\s*{_SURNAME}){{0,4}}\s*,?\s+(?:and|&)\s+{_SURNAME}))?"
)
_YEAR: Final = r"(?:19|20)\d\d(?!\d)[a-z]?"
_YEARS: Final = rf"(?P<years>{_YEAR}(?:\s*[,;]\s*(?:{_YEAR}|[a-z](?![\w.])))*)"
_CITATION: Final = re.compile(rf"(?<![\w\-]){_AUTHORS}\s*,?\s*{_YEARS}(?![\w])")
_NARRATIVE: Final = re.compile(rf"(?<![\w\-]){_AUTHORS}\s*(?P<open>[(\[])\s*{_YEARS}\s*[)\]]")
_GROUP: Final = re.compile(rf"[(\[](?P<inner>[^()\[\]]{{4,{_MAX_GROUP_CHARS}}})[)\]]")
_CO_AUTHOR: Final = re.compile(r"\s*,\s*(?:and\s+|&\s*)?|\s+(?:and|&)\s+")
_ONE_YEAR: Final = re.compile(r"(?P<year>(?:19|20)\d\d)(?P<suffix>[a-z]?)|(?P<letter>[a-z])")
_WORDS_NOT_NAMES: Final = frozenset(
    ["Table", "Figure", "Fig", "Section", "Sec", "Appendix", "Eq", "Equation", "Algorithm",
     "In", "See", "The", "For", "And", "Since", "From", "As", "On", "At", "Of", "By", "With",
     "January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December", "Spring", "Summer", "Fall", "Autumn", "Winter"]
)  # fmt: skip


@dataclass(frozen=True)
class Cite:
    """One work a mark cites: by its number in the list, or by its authors' surnames (the
    first, and the others a two- or three-author citation names) and year ("2020a": 2020,
    "a")."""

    number: int | None = None
    surnames: tuple[str, ...] = ()
    et_al: bool = False
    year: int | None = None
    suffix: str = ""


@dataclass(frozen=True)
class Mark:
    """A citation printed on a page: its text (white space made single), the characters
    `start` to `end` of the page's text it spans, its form and what it cites."""

    text: str
    start: int
    end: int
    style: str  # "numeric", "author-year" or "narrative"
    cites: tuple[Cite, ...]


def find_marks(text: str) -> list[Mark]:
    """Every citation mark of a page's text, in the order printed."""
    clean, where = _without_accents(text)
    marks = list(_narrative(clean))
    taken = [(mark.start, mark.end) for mark in marks]
    for mark in (*_numeric(clean), *_parenthetical(clean)):
        if not any(start < mark.end and mark.start < end for start, end in taken):
            marks.append(mark)
    if where is not None:
        marks = [replace(m, start=where[m.start], end=where[m.end - 1] + 1) for m in marks]
    return sorted(marks, key=lambda mark: mark.start)


def _without_accents(text: str) -> tuple[str, list[int] | None]:
    """The text without the accents a PDF draws apart from their letters ("Dogan et al. \u02d8
    (2014)"), and where each character left stands in it (None when there are none)."""
    if _ACCENT.search(text) is None:
        return text, None
    kept: list[str] = []
    where: list[int] = []
    at = 0
    for found in _ACCENT.finditer(text):
        kept.append(text[at : found.start()])
        where += range(at, found.start())
        at = found.end()
    kept.append(text[at:])
    where += range(at, len(text))
    return "".join(kept), where


def numbers_of(listed: str) -> list[int]:
    """The numbers a bracket cites ("3-5, 9" is 3, 4, 5, 9), at most `MAX_NUMBERS`; a range
    whose end is below its start cites its two ends."""
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", listed.strip()):
        ends = [int(n) for n in re.split(r"\s*[-\u2013\u2014]\s*", part) if n]
        if len(ends) == 2 and ends[0] < ends[1]:
            numbers += range(ends[0], min(ends[1], ends[0] + MAX_NUMBERS) + 1)
        else:
            numbers += ends
        if len(numbers) >= MAX_NUMBERS:
            break
    return list(dict.fromkeys(numbers))[:MAX_NUMBERS]


def _numeric(text: str) -> Iterator[Mark]:
    for found in _BRACKET.finditer(text):
        numbers = numbers_of(found["list"])
        if numbers and 0 not in numbers:
            cites = tuple(Cite(number=n) for n in numbers)
            yield Mark(_clean(found.group()), found.start(), found.end(), "numeric", cites)


def _narrative(text: str) -> Iterator[Mark]:
    for found in _NARRATIVE.finditer(text):
        cites = _cites(found)
        if cites:
            yield Mark(_clean(found.group()), found.start(), found.end(), "narrative", cites)


def _parenthetical(text: str) -> Iterator[Mark]:
    for group in _GROUP.finditer(text):
        inner = group["inner"]
        offset = group.start("inner")
        for found in _CITATION.finditer(inner):
            cites = _cites(found)
            if cites:
                start, end = offset + found.start(), offset + found.end()
                yield Mark(_clean(found.group()), start, end, "author-year", cites)


def _cites(found: re.Match[str]) -> tuple[Cite, ...]:
    """The works one citation names: its authors with each year it lists ("2019a,b" is
    2019a and 2019b); none when its first word is no surname ("Table 2 (2019)")."""
    surnames = [_surname(found["first"])]
    if found["more"]:
        surnames += [_surname(name) for name in _CO_AUTHOR.split(found["more"])]
    surnames = [name for name in surnames if name]
    if not surnames or surnames[0].split()[-1] in _WORDS_NOT_NAMES:
        return ()
    cites: list[Cite] = []
    year = 0
    for part in _ONE_YEAR.finditer(found["years"]):
        if part["year"]:
            year = int(part["year"])
        suffix = part["suffix"] or part["letter"] or ""
        if year:
            cite = Cite(None, tuple(surnames), bool(found["etal"]), year, suffix)
            cites.append(cite)
    return tuple(dict.fromkeys(cites))


def _surname(written: str) -> str:
    """A surname as written, its line breaks and hyphens of a broken word mended."""
    return " ".join(written.replace(_BREAK, "").split()).strip(" ,")


def _clean(text: str) -> str:
    return " ".join(text.replace(_BREAK, "").split())
