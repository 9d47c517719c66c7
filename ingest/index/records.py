"""The records that flow through ingest: papers, parsed PDF text, chunks.

Everything here is plain data. Sources produce `Paper`s and `ParsedPdf`s,
chunking turns them into `Chunk`s, the indexes store chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ingest.pdf.front.glyphs import Line

from ingest.errors import PaperchatError

# New-style ids (0704.0001, 2203.12533) and old-style ones (hep-th/9901001,
# math.GT/0309136), each with an optional version suffix.
_NEW_ID = r"\d{4}\.\d{4,5}"
_OLD_ARCHIVE = r"[a-z][a-z\-]*(?:\.[A-Z]{2})?"
_VERSION = r"(?P<version>v\d+)?"
ARXIV_ID_RE = re.compile(rf"(?P<id>{_NEW_ID}|{_OLD_ARCHIVE}/\d{{7}}){_VERSION}")
_FULL_ID_RE = re.compile(rf"^(?:arxiv:)?{ARXIV_ID_RE.pattern}$", re.I)
# A PDF named for its paper: 2203.12533v2.pdf, hep-th_9901001.pdf (no slash in a file name).
_FILE_ID_RE = re.compile(rf"^(?P<id>{_NEW_ID}|{_OLD_ARCHIVE}_\d{{7}}){_VERSION}$")


class InvalidPaperId(PaperchatError, ValueError):
    """A string that is not an arXiv id."""


def split_arxiv_id(text: str) -> tuple[str, str | None]:
    """Split `arXiv:2203.12533v2` into (`2203.12533`, `v2`); raise if it is no id."""
    match = _FULL_ID_RE.match(text.strip())
    if match is None:
        raise InvalidPaperId(f"not an arXiv id: {text!r}")
    return match["id"], match["version"]


def normalise_paper_id(value: str) -> str:
    """The index's id for a paper id as a person writes it: an arXiv id without its
    version and `arXiv:` (`arXiv:2203.12533v2`, `hep-th/9901001v1`), a document id
    without `doc:`. Anything else comes back stripped, to be looked up as it is."""
    try:
        return split_arxiv_id(value)[0]
    except InvalidPaperId:
        return value.strip().removeprefix("doc:")


def file_name_id(stem: str) -> tuple[str, str | None] | None:
    """(`hep-th/9901001`, `v2`) for a PDF named for its paper (`hep-th_9901001v2`), else None."""
    match = _FILE_ID_RE.match(stem)
    return None if match is None else (match["id"].replace("_", "/"), match["version"])


def arxiv_url(paper_id: str) -> str:
    return f"https://arxiv.org/abs/{paper_id}"


def arxiv_pdf_url(paper_id: str) -> str:
    return f"https://arxiv.org/pdf/{paper_id}"


# A chunk's id: its paper's id, its kind and number within the paper, a digest of its text.
_CHUNK_PLACE = re.compile(r"#([a-z]+)-(\d+)(?:@|$)")


def chunk_place(chunk_id: str) -> tuple[str, int] | None:
    """A chunk's kind and number within its paper, read from its id
    (`paper#kind-N@digest`); None for an id not of that form."""
    match = _CHUNK_PLACE.search(chunk_id)
    return (match.group(1), int(match.group(2))) if match else None


@dataclass(frozen=True)
class Paper:
    """One paper's metadata, from a metadata file, the arXiv API or a PDF.

    `id` is the arXiv id without version, or, for a document that is not on
    arXiv, a stable id made from its content hash (`is_arxiv` is then False
    and the paper is cited as `[doc:<id>]`).
    """

    id: str
    title: str
    abstract: str = ""
    authors: str = ""
    categories: tuple[str, ...] = ()
    version: str = ""
    # The first submission: an ISO day, or `YYYY-MM` when only the month is known (the
    # month an arXiv id encodes, `ingest/sources/dates.py`); "" when unknown.
    published: str = ""
    updated: str = ""  # ISO date of the last version or the record's update, "" when unknown
    is_arxiv: bool = True
    comments: str = ""
    journal_ref: str = ""  # where it appeared, as the record's `journal-ref` says
    doi: str = ""

    @property
    def primary_category(self) -> str:
        return self.categories[0] if self.categories else ""

    @property
    def citation(self) -> str:
        return f"[arXiv:{self.id}]" if self.is_arxiv else f"[doc:{self.id}]"


@dataclass(frozen=True)
class Block:
    """Text of one page within one section of a PDF, in reading order."""

    section: str
    page: int  # 1-based
    text: str
    is_references: bool = False
    kind: str = "fulltext"  # or "caption", "table", "footnote": text kept out of the body flow


@dataclass(frozen=True)
class Reference:
    """One entry of a paper's reference list as its PDF prints it; "" or None where the entry
    does not say (`ingest/references/`)."""

    title: str
    authors: str = ""  # names separated by ", ", as printed ("K. He", "Kaiming He", "et al.")
    year: int | None = None
    venue: str = ""
    arxiv_id: str = ""  # without version
    doi: str = ""  # lower case, without "doi:" or its URL


@dataclass(frozen=True)
class Header:
    """What a paper's first page says of it; "" where it could not be read."""

    title: str = ""
    authors: str = ""  # names separated by ", "
    abstract: str = ""
    published: str = ""  # ISO date: a first version's arXiv stamp, or the PDF's own date
    updated: str = ""  # ISO date: a later version's arXiv stamp
    # Institutions named under the authors: (name, its parent as printed or "").
    affiliations: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ParsedPdf:
    """What the PDF parser hands back from its worker process."""

    path: str
    sha256: str
    page_count: int
    blocks: tuple[Block, ...]
    stamp_id: str = ""  # arXiv id found in the page-1 margin stamp, without version
    stamp_version: str = ""
    stamp_category: str = ""
    metadata_title: str = ""
    metadata_authors: str = ""
    first_page_title: str = ""
    # Page 1's text as PDFium reads it: where the title of the paper the file claims to be
    # must be printed (`ingest/sources/units.py`).
    first_page_text: str = ""
    header: Header = Header()
    stats: dict[str, int] = field(default_factory=dict)
    # Page 1's lines above the abstract, as glyphs (`ingest/pdf/front/glyphs.py`): who is
    # where, read against the paper's final authors (`ingest/pdf/front/placements.py`).
    front_lines: tuple[Line, ...] = ()


@dataclass(frozen=True)
class Box:
    """Where part of a chunk is printed: a rectangle on one page of its PDF, in fractions of
    the page's width and height from its top left corner."""

    page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float

    def as_json(self) -> dict[str, float | int]:
        return {"page": self.page, "x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}

    @classmethod
    def from_json(cls, value: dict[str, float | int]) -> Box:
        return cls(int(value["page"]), *(float(value[k]) for k in ("x0", "y0", "x1", "y1")))


@dataclass(frozen=True)
class Chunk:
    """One indexed passage with everything a source citation needs."""

    id: str
    paper_id: str
    kind: str  # "abstract", "fulltext", or a PDF's "caption", "table", "footnote"
    number: int
    text: str
    section: str
    page_start: int
    page_end: int
    paper: Paper
    # Where a full-text chunk is printed in its PDF; None when not recorded (an abstract,
    # an index built before positions were), () when its text was not found on its pages.
    boxes: tuple[Box, ...] | None = None
