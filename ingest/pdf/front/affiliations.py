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
_EDGE_DIGITS_RE: Final = re.compile(r"^\s*\d{1,2}\s*|\s*\d{1,2}\s*$")
# A legal form after a comma belongs to the name before it.
_LEGAL_RE: Final = re.compile(r"^(?:Inc|Ltd|LLC|Corp|GmbH|S\.A|AG)\.?$")
_PARENTHESES_RE: Final = re.compile(r"\([^()]*\)")
_WORD_RE: Final = re.compile(r"[^\W\d_][\w.'\u2019-]*|&|\d+")
_MAX_WORDS: Final = 8
_MAX_AFFILIATIONS: Final = 20


def read_affiliations(lines: Sequence[Line]) -> tuple[Affiliation, ...]:
    """The institutions the lines name, each once, in order of first mention."""
    found: dict[str, str] = {}
    for line in lines:
        text = line.text(marks=False, wide=True)
        if "@" in text or "://" in text:
            continue
        for column in text.split("  "):
            for name, parent in _column_affiliations(column):
                if found.get(name, "") == "":
                    found[name] = parent
    return tuple(found.items())[:_MAX_AFFILIATIONS]


def _column_affiliations(column: str) -> list[Affiliation]:
    """The institutions one column of a line names, a unit with its organisation as parent."""
    pieces: list[str] = []
    for piece in re.split(r"[,;]", _PARENTHESES_RE.sub(" ", _MARKS_RE.sub(" ", column))):
        piece = _clean(piece)
        if pieces and _LEGAL_RE.match(piece):  # "Google, Inc.": one name
            pieces[-1] = f"{pieces[-1]}, {piece}"
        elif piece:
            pieces.append(piece)
    named = [piece for piece in pieces if _is_institution(piece)]
    organisations = [piece for piece in named if not _UNIT_RE.match(piece)]
    if not organisations:
        return []
    if len(organisations) == 1:
        return [(organisations[0], "")]
    unit, parent = organisations[0], organisations[1]
    if _shares_word(unit, parent):  # "Google Brain, Google Inc.": one inside the other
        return [(unit, parent), (parent, "")]
    return [(name, "") for name in organisations]


def _clean(piece: str) -> str:
    text = " ".join(_EDGE_DIGITS_RE.sub(" ", piece.split("(")[0]).split()).strip(" :()&")
    return text.lstrip(".")


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
