"""One entry of an imported library file, as the three readers make it, and the arXiv id
and DOI its fields name.

An entry names an arXiv paper by its `eprint` (with `archivePrefix` arXiv), an
arxiv.org address, arXiv's DOI (10.48550/arXiv.X) or a journal field written
`arXiv:X`; its DOI is kept lower case, without `doi:` or its address.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from chat.library.identifiers import ARXIV_DOI_PREFIX
from ingest.errors import PaperchatError
from ingest.index.records import ARXIV_ID_RE
from ingest.index.tex import readable_tex

# Most entries a file may hold: a large personal library is a few thousand.
MAX_ENTRIES = 5000

_ARXIV_URL_RE = re.compile(rf"arxiv\.org/(?:abs|pdf)/{ARXIV_ID_RE.pattern}", re.I)
_ARXIV_NOTE_RE = re.compile(rf"\barxiv:\s*{ARXIV_ID_RE.pattern}", re.I)
_DOI_RE = re.compile(r"\b(10\.\d{4,9}/\S+)")
# TeX's font switches inside a title's braces: `{\em word}`.
_FONT_SWITCH_RE = re.compile(r"\\(?:em|bf|it|sc|sl|rm|tt|sf|bfseries|itshape|scshape)\b\s*")


class UnreadableFile(PaperchatError, ValueError):
    """A file no reader can read as a whole: not one of the formats, or too many entries."""


@dataclass(frozen=True)
class Entry:
    """A readable entry: where it starts in the file (a line, or a position in a list)."""

    at: str
    title: str = ""
    arxiv_id: str = ""
    doi: str = ""


@dataclass(frozen=True)
class Unreadable:
    at: str
    reason: str


@dataclass
class Reading:
    """What a reader made of a file: its entries in order and those it could not read."""

    format: str
    entries: list[Entry] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)

    def count(self) -> None:
        """UnreadableFile once the file holds more than `MAX_ENTRIES` entries."""
        if len(self.entries) + len(self.unreadable) > MAX_ENTRIES:
            raise UnreadableFile(f"a file holds at most {MAX_ENTRIES} entries")


def arxiv_id_in(values: Iterable[str]) -> str:
    """The first arXiv id (without version) an address, DOI or `arXiv:` note among
    `values` names; "" when none does."""
    for value in values:
        doi = doi_in(value)
        if doi.startswith(ARXIV_DOI_PREFIX.lower()):
            match = ARXIV_ID_RE.fullmatch(doi.removeprefix(ARXIV_DOI_PREFIX.lower()))
            if match is not None:
                return match["id"]
        found = _ARXIV_URL_RE.search(value) or _ARXIV_NOTE_RE.search(value)
        if found is not None:
            return found["id"]
    return ""


def eprint_id(eprint: str, archive: str) -> str:
    """The arXiv id of an `eprint` field, when its archive is arXiv (or not said)."""
    if archive and archive.strip().lower() != "arxiv":
        return ""
    match = ARXIV_ID_RE.fullmatch(eprint.strip().removeprefix("arXiv:").removeprefix("arxiv:"))
    return match["id"] if match is not None else ""


def doi_in(value: str) -> str:
    """The DOI `value` holds (a bare DOI, `doi:` or a doi.org address), lower case; ""."""
    found = _DOI_RE.search(value)
    return found[1].rstrip(".,;").lower() if found is not None else ""


def plain(text: str) -> str:
    """A field's readable text on one line: TeX made readable, braces gone."""
    text = _FONT_SWITCH_RE.sub("", text)
    return " ".join(readable_tex(text).replace("{", "").replace("}", "").split())
