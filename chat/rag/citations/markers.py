"""The references a quoted sentence itself cites: "[12]" is the 12th entry of the quoted
paper's reference list, "(Lewis et al., 2020)" the entry whose first author is Lewis and
whose year is 2020 (the only such entry). A marker that names no one entry is left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ingest.index.names.citations import StoredReference
from ingest.index.names.people import fold

# "[12]", "[3, 7]", "[4-6]": numbers inside square brackets, ranges of at most this span.
_NUMBERED: Final = re.compile(r"\[(\d{1,3}(?:\s*[,;\u2013-]\s*\d{1,3})*)\]")
_MAX_RANGE: Final = 10
# "(Lewis et al., 2020)", "(Lewis and Oguz, 2020a; Guu et al., 2020)", "Lewis et al. (2020)".
_AUTHOR_YEAR: Final = re.compile(
    r"(?P<name>[A-Z][\w'\u2019-]+)(?: et al\.?| (?:and|&) [A-Z][\w'\u2019-]+)?,?\s+\(?"
    r"(?P<year>(?:19|20)\d\d)[a-z]?"
)
_IN_PARENS: Final = re.compile(r"\(([^()]*\b(?:19|20)\d\d[a-z]?)\)")


@dataclass(frozen=True)
class CitedReference:
    """A marker of a quoted sentence and the reference it stands for."""

    marker: str  # as written: "[12]", "Lewis et al., 2020"
    title: str
    resolved_id: str | None  # the library's paper, when it holds it

    def data(self) -> dict[str, Any]:
        return {"marker": self.marker, "title": self.title, "resolved_id": self.resolved_id}


def has_markers(text: str) -> bool:
    """Whether `text` writes a numbered or an author-year citation marker."""
    return bool(_NUMBERED.search(text) or _IN_PARENS.search(text) or _AUTHOR_YEAR.search(text))


def cited_references(
    text: str, references: Sequence[StoredReference]
) -> tuple[CitedReference, ...]:
    """Each marker of `text` that names one entry of `references`, in the order written."""
    found: list[CitedReference] = []
    for match in _NUMBERED.finditer(text):
        for number in _numbers(match[1]):
            if 1 <= number <= len(references):
                found.append(_cited(f"[{number}]", references[number - 1]))
    for match in _AUTHOR_YEAR.finditer(text):
        entry = _by_author_year(references, match["name"], int(match["year"]))
        if entry is not None:
            found.append(_cited(" ".join(match[0].replace("(", " ").split()), entry))
    return tuple(dict.fromkeys(found))


def _numbers(written: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", written):
        low, _, high = part.replace("\u2013", "-").partition("-")
        first = int(low)
        last = int(high) if high.strip().isdigit() else first
        if 0 <= last - first <= _MAX_RANGE:
            numbers.extend(range(first, last + 1))
    return numbers


def _by_author_year(
    references: Sequence[StoredReference], surname: str, year: int
) -> StoredReference | None:
    wanted = fold(surname)
    entries = [
        r
        for r in references
        if r.reference.year == year and _first_surname(r.reference.authors) == wanted
    ]
    return entries[0] if len(entries) == 1 else None


def _first_surname(authors: str) -> str:
    first = authors.split(", ")[0].strip()
    return fold(first.split()[-1]) if first else ""


def _cited(marker: str, entry: StoredReference) -> CitedReference:
    return CitedReference(marker, entry.reference.title, entry.resolved_id)
