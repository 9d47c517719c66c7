"""Institutions from the lines between a paper's title and its abstract.

Those lines hold names, affiliations, e-mails and addresses, in rows or in
columns (a wide gap between columns). Each column's text is cut at commas
and semicolons; a piece is an institution when it has a word of an
organisation ("University", "Institute", "Research", "Inc.", a company's
name) and reads as a proper name: every word capitalised but a few joining
words ("of", "for", "and"), at most eight words. So "Google hereby grants
permission" (a notice) and "Mountain View, CA" (an address) are not taken.
A department, school or faculty is not an institution of its own: the
organisation after it on the same line is ("Department of Computer
Science, Stanford University" gives Stanford University).

Where one line names a unit and then its organisation ("Google Brain,
Google Inc."; "Facebook AI Research, Meta"), the unit is kept with the
organisation as its parent. Raised marks and the digits that tie authors
to affiliations are left out.

A campus of a university with several is its own institution: "University
of California, Berkeley" (the piece after the comma a place, not a state
or country) is kept whole, "University of California" its parent, and
"University of California, Santa Cruz" is another one. Some organisations
carry no word of one ("EleutherAI", "Zendesk", "DATA61, CSIRO", "ENS"):
the first name after an affiliation mark ("7Zendesk") is taken as one, and
an acronym in capitals is beside another institution on its line ("ENS, PSL
University"), but not a note ("*Equal contribution") or a country code.
"All authors from DeepMind" names DeepMind.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ingest.pdf.front.glyphs import Line

Affiliation = tuple[str, str]  # (institution, its parent as the PDF names it, or "")

_ORGANISATION_WORDS: Final = frozenset(
    {"university", "universität", "universidad", "université", "università", "universiteit",
     "institute", "institut", "instituto", "college", "research", "laboratory", "laboratories",
     "lab", "labs", "inc", "corp", "corporation", "company", "ltd", "llc", "gmbh", "ai",
     "brain", "academy", "foundation", "center", "centre", "hospital", "polytechnic", "eth",
     "epfl", "mit", "cnrs", "inria", "google", "microsoft", "facebook", "meta", "openai",
     "deepmind", "amazon", "nvidia", "ibm", "intel", "apple", "baidu", "alibaba", "tencent",
     "bytedance", "huawei", "salesforce", "adobe", "samsung", "anthropic", "school",
     "department", "dept", "faculty", "division"}
)  # fmt: skip
# Units inside an organisation that are not one on their own.
_UNIT_RE: Final = re.compile(r"^(?:the\s+)?(?:department|dept|school|faculty|division)\b", re.I)
_JOINING: Final = frozenset(
    {"of", "for", "and", "the", "de", "la", "du", "des", "di", "at", "in", "und", "für", "&", "y"}
)
_MARKS_RE: Final = re.compile(
    r"[\u2020\u2021\u2217\u22c6\u2605\u2606\u2660-\u2667\u25c7\u25c6\u25a1\u2662\u2661\u22c4*§¶#]+"
)
# Digits at a piece's edge tie it to authors; those closing a word are its own ("DATA61").
_EDGE_DIGITS_RE: Final = re.compile(r"^\s*\d{1,2}\s*|(?:^|\s)\d{1,2}\s*$")
# A legal form after a comma belongs to the name before it.
_LEGAL_RE: Final = re.compile(r"^(?:Inc|Ltd|LLC|Corp|GmbH|S\.A|AG)\.?$")
_PARENTHESES_RE: Final = re.compile(r"\([^()]*\)")
_WORD_RE: Final = re.compile(r"[^\W\d_][\w.'\u2019-]*|&|\d+")
_MAX_WORDS: Final = 8
# One affiliation for every author, said in a sentence: "All authors from DeepMind".
_ALL_FROM_RE: Final = re.compile(r"^(?:all\s+)?authors\s+(?:are\s+)?(?:from|at|with)\s+", re.I)
_MAX_MARKED_WORDS: Final = 4  # a name after a mark, without a word of an organisation
# Universities whose campuses are institutions of their own ("University of California,
# Berkeley"; "University of Texas at Austin").
_SYSTEMS_RE: Final = re.compile(
    r"^(University of (?:California|Texas|Illinois|Massachusetts|Wisconsin|North Carolina"
    r"|Colorado|Maryland|Minnesota|Missouri|Nebraska|Hawaii)|State University of New York)"
    r"(?:,\s*|\s+(?:at\s+)?)(?=\S)",
)
# Systems a campus names after itself ("University at Buffalo, SUNY"): the parent it gives,
# by its full name, as "State University of New York at Buffalo" gives it.
_SYSTEM_NAMES: Final = {
    "suny": "State University of New York",
    "state university of new york": "State University of New York",
    "cuny": "City University of New York",
    "city university of new york": "City University of New York",
}
# What follows a university's name and is no campus: a country or a state's code.
_NOT_CAMPUS: Final = frozenset(
    {"usa", "us", "u.s.a", "united states", "united states of america", "america", "canada"}
)
# Codes in capitals that are places, not organisations.
_PLACE_CODES: Final = frozenset(
    {"USA", "UAE", "PRC", "ROC", "GBR", "DEU", "FRA", "CHN", "JPN", "KOR", "CAN", "AUS", "ITA",
     "ESP", "IND", "NLD", "CHE", "SWE", "BEL", "AUT", "ISR", "SGP", "HKG", "USSR"}
)  # fmt: skip
_ACRONYM_RE: Final = re.compile(r"^(?=(?:[^A-Z]*[A-Z]){2})[A-Z][A-Z0-9&-]{2,9}$")
# Words of a note after a mark, not of a name: "*Equal contribution", "†Work done at ...".
_NOTE_WORDS: Final = frozenset(
    {"equal", "contribution", "contributions", "contributed", "contributing", "work", "done",
     "correspondence", "corresponding", "author", "authors", "authorship", "intern",
     "internship", "now", "currently", "while", "visiting", "senior", "first", "joint",
     "project", "lead", "leads", "advising", "email", "e-mail"}
)  # fmt: skip
_MAX_AFFILIATIONS: Final = 30
_WIDE_GAP: Final = 0.6  # in type sizes: the gap `Line.text` parts columns at


def read_affiliations(lines: Sequence[Line], *, led: bool = False) -> tuple[Affiliation, ...]:
    """The institutions the lines name, each once, in order of first mention; with `led`,
    each line is known to follow an affiliation mark (its first name is one)."""
    found: dict[str, str] = {}
    for line in lines:
        text = line.text(marks=False, wide=True)
        if "@" in text or "://" in text:
            continue
        columns = text.split("  ")
        marked = _marked_columns(line, len(columns))
        if led and marked:
            marked[0] = True
        for column, after_mark in zip(columns, marked, strict=True):
            for name, parent in _column_affiliations(column, after_mark):
                if found.get(name, "") == "":
                    found[name] = parent
    return tuple(found.items())[:_MAX_AFFILIATIONS]


def _marked_columns(line: Line, count: int) -> list[bool]:
    """For each of the line's `count` columns (as `Line.text` parts them at wide gaps),
    whether an affiliation mark leads it: a mark set nearer the column's first letter than
    the letter before it ("2EleutherAI"; "Peng1 Eric" is a mark after a name). All False
    where the columns cannot be told."""
    marks = line.marks()
    led: list[bool] = []
    mark_left = mark_right = None  # the pending run of marks
    last = None
    for glyph, mark in zip(line.glyphs, marks, strict=True):
        if mark or _MARKS_RE.fullmatch(glyph.char):
            mark_left = glyph.left if mark_left is None else mark_left
            mark_right = glyph.right
            continue
        if glyph.char.isspace():
            continue
        if last is None or glyph.left - last.right > _WIDE_GAP * line.size:
            leading = False
            if mark_left is not None and mark_right is not None:
                before = mark_left - last.right if last is not None else float("inf")
                leading = glyph.char.isalnum() and glyph.left - mark_right < before
            led.append(leading)
        mark_left = mark_right = None
        last = glyph
    return led if len(led) == count else [False] * count


def _column_affiliations(column: str, after_mark: bool = False) -> list[Affiliation]:
    """The institutions one column of a line names, a unit with its organisation as parent;
    `after_mark` when an affiliation mark leads the column."""
    pieces: list[str] = []
    for piece in re.split(r"[,;]", _PARENTHESES_RE.sub(" ", _MARKS_RE.sub(" ", column))):
        piece = _clean(piece)
        # "Google, Inc." and "University of California, Berkeley": one name each.
        if pieces and (_LEGAL_RE.match(piece) or _is_campus(pieces[-1], piece)):
            pieces[-1] = f"{pieces[-1]}, {piece}"
        elif piece:
            pieces.append(piece)
    named = [
        piece
        for number, piece in enumerate(pieces)
        if _is_institution(piece) or (after_mark and number == 0 and _is_marked_name(piece))
    ]
    if named:
        named = [piece for piece in pieces if piece in named or _is_acronym(piece)]
    organisations = [piece for piece in named if not _UNIT_RE.match(piece)]
    if not organisations:
        return []
    if len(organisations) == 1:
        return _with_system(organisations[0], "")
    unit, parent = organisations[0], organisations[1]
    system = _SYSTEM_NAMES.get(parent.casefold())
    if system and unit.casefold() not in _SYSTEM_NAMES:  # "University at Buffalo, SUNY"
        return [(unit, system), *(f for n in organisations[2:] for f in _with_system(n, ""))]
    if _shares_word(unit, parent):  # "Google Brain, Google Inc.": one inside the other
        return [(unit, parent), (parent, "")]
    return [found for name in organisations for found in _with_system(name, "")]


def _is_campus(university: str, piece: str) -> bool:
    """Whether `piece`, after `university` and a comma, is the campus of a university with
    several: a place of one to three capitalised words, not a country or a state's code."""
    system = _SYSTEMS_RE.match(f"{university}, {piece}")
    if system is None or system[1] != university or not piece:
        return False
    words = piece.split()
    if len(words) > 3 or piece.casefold().rstrip(".") in _NOT_CAMPUS:
        return False
    if len(piece) <= 3 and piece.isupper():  # "CA", "USA"
        return False
    return all(w[0].isupper() or w.casefold() in _JOINING for w in words)


def _with_system(name: str, parent: str) -> list[Affiliation]:
    """A campus with its university as parent ("University of California, Berkeley" in
    "University of California", which the paper does not name on its own); any other name
    as it is."""
    match = _SYSTEMS_RE.match(name)
    return [(name, parent or (match[1] if match else ""))]


def _is_marked_name(piece: str) -> bool:
    """A name an affiliation mark leads, read as an organisation's though it has no word of
    one ("Zendesk", "Charm Therapeutics"): a few capitalised words, not a note."""
    words = _WORD_RE.findall(piece)
    if not words or len(words) > _MAX_MARKED_WORDS:
        return False
    if {w.casefold() for w in words} & _NOTE_WORDS:
        return False
    return all(w[0].isupper() or w.casefold() in _JOINING for w in words) and not _is_place(piece)


def _is_place(piece: str) -> bool:
    return piece in _PLACE_CODES or piece.casefold().rstrip(".") in _NOT_CAMPUS


def _is_acronym(piece: str) -> bool:
    """An organisation's acronym in capitals ("ENS", "CSIRO", "DATA61"), not a place's."""
    return bool(_ACRONYM_RE.match(piece)) and not _is_place(piece)


def _clean(piece: str) -> str:
    text = " ".join(_EDGE_DIGITS_RE.sub(" ", piece.split("(")[0]).split()).strip(" :()&")
    return _ALL_FROM_RE.sub("", text.lstrip("."))


def _is_institution(piece: str) -> bool:
    words = _WORD_RE.findall(piece)
    if not words or len(words) > _MAX_WORDS:
        return False
    keys = {w.casefold().strip(".") for w in words}
    if not keys & _ORGANISATION_WORDS:
        return False
    return all(w[0].isupper() or w[0].isdigit() or w.casefold() in _JOINING for w in words)


def _shares_word(unit: str, organisation: str) -> bool:
    first = organisation.split()[0].casefold()
    return first in {w.casefold() for w in unit.split()}
