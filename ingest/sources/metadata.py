"""arXiv metadata files: JSON lines in the OAI snapshot layout, plain or gzipped.

A record may also give its authors' affiliations, which the snapshot lacks:
`affiliations`, one list per author in the order of `authors`, each
affiliation a name or `{"name": ..., "ror": ...}` with its ROR id (the id or
its URL). They are written into the authors string the way arXiv writes
affiliations, in parentheses after the name, the ROR id after its name:
`Noam Shazeer (Google Research ror:00njsd438)`
(`ingest/index/names/institutions.py` reads them back).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from io import BufferedIOBase
from pathlib import Path
from typing import Any, Final

from ingest.errors import PaperchatError
from ingest.index.names.institutions import InvalidRorId, ror_id
from ingest.index.names.people import written_parts
from ingest.index.records import InvalidPaperId, Paper, split_arxiv_id
from ingest.report import Skipped
from ingest.sources.dates import first_submission, iso_date
from ingest.text import check_text

_SPACE_RE = re.compile(r"\s+")
_DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")
# A record (one line) longer than this is skipped unread; arXiv's longest are about 10 kB.
MAX_RECORD_BYTES = 1024 * 1024
# A line over the limit is passed over in pieces of this size, never held whole.
_SKIP_PIECE_BYTES = 1024 * 1024
# The longest a paper's fields may be, in characters once white space is normalised (the
# categories kept, joined by spaces); a paper over a limit is skipped with its reason. arXiv's
# own stay far below: in 74,928 records the longest title has 226 characters, abstract 3,488,
# author list 48,128, comments 421, journal-ref 175, DOI 55, categories 203.
FIELD_LIMITS: Final = {
    "title": 1_000,
    "abstract": 20_000,
    "authors": 250_000,
    "comments": 5_000,
    "journal_ref": 1_000,
    "doi": 200,
    "version": 20,
    "categories": 2_000,
}
# Names in one author list (a collaboration's paper lists 3,303), and characters in one name:
# the longest real one, 512, is names run together without their commas.
MAX_AUTHORS: Final = 10_000
MAX_AUTHOR_NAME_CHARS: Final = 1_000


class MetadataError(PaperchatError, ValueError):
    """A metadata file that cannot be read at all."""


# What reading a file's bytes raises past a broken disk, a truncated gzip stream (EOFError)
# or a corrupt one (zlib.error).
_UNREADABLE = (OSError, EOFError, zlib.error)


def normalise_space(text: str) -> str:
    """Collapse arXiv's hard line breaks and runs of spaces; TeX is kept as written."""
    return _SPACE_RE.sub(" ", text).strip()


def _version_dates(record: dict[str, Any]) -> list[str]:
    """The ISO day of each version of the record, in order ("" for one without a date)."""
    versions = record.get("versions")
    if not isinstance(versions, list):
        return []
    return [iso_date(str(v.get("created", ""))) if isinstance(v, dict) else "" for v in versions]


def _published(paper_id: str, record: dict[str, Any]) -> str:
    """The first version's day, else the month the id encodes; never `update_date`, the
    day the record last changed."""
    days = _version_dates(record)
    return first_submission(paper_id, days[0] if days else "")


def _updated(record: dict[str, Any]) -> str:
    """The last version's day, else the record's `update_date`."""
    days = [day for day in _version_dates(record) if day]
    return days[-1] if days else iso_date(str(record.get("update_date") or ""))


def _latest_version(record: dict[str, Any]) -> str:
    versions = record.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[-1], dict):
        return str(versions[-1].get("version", ""))
    return ""


def _doi(value: Any) -> str:
    """The record's DOI as `10.xxxx/...`; a record may list several, space separated (the
    first is kept) or write it as a URL."""
    first = normalise_space(str(value or "")).partition(" ")[0]
    doi = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", first, flags=re.IGNORECASE)
    return doi if _DOI_RE.match(doi) else ""


def _categories(value: Any) -> tuple[str, ...]:
    """Keep arXiv category codes; the snapshot also carries MSC/ACM class codes."""
    words = str(value or "").split()
    return tuple(w for w in words if re.fullmatch(r"[a-z\-]+(\.[A-Za-z\-]+)?", w))


def over_limit(paper: Paper) -> str | None:
    """Which field of `paper` is longer than its limit and by how much, or None when none is."""
    for name, limit in FIELD_LIMITS.items():
        value = getattr(paper, name)
        length = len(" ".join(value) if isinstance(value, tuple) else value)
        if length > limit:
            field = name.replace("_", "-")
            return f"the {field} is {length} characters, over the limit of {limit}"
    names = written_parts(paper.authors) if paper.authors else []
    if len(names) > MAX_AUTHORS:
        return f"the author list has {len(names)} names, over the limit of {MAX_AUTHORS}"
    longest = max(map(len, names), default=0)
    if longest > MAX_AUTHOR_NAME_CHARS:
        return (
            f"an author's name is {longest} characters, over the limit of {MAX_AUTHOR_NAME_CHARS}"
        )
    return None


def paper_from_record(record: dict[str, Any]) -> Paper:
    """Build a `Paper` from one snapshot record; raise ValueError naming what is missing or
    over its limit (FIELD_LIMITS)."""
    raw_id = record.get("id")
    if not isinstance(raw_id, str) or not raw_id.strip():
        raise ValueError("record has no id")
    try:
        paper_id, id_version = split_arxiv_id(raw_id)
    except InvalidPaperId as e:
        raise ValueError(f"record id {raw_id!r} is not an arXiv id") from e
    abstract = normalise_space(str(record.get("abstract") or ""))
    if not abstract:
        raise ValueError(f"record {paper_id} has no abstract")
    title = normalise_space(str(record.get("title") or ""))
    if not title:
        raise ValueError(f"record {paper_id} has no title")
    paper = Paper(
        id=paper_id,
        title=title,
        abstract=abstract,
        authors=_authors(paper_id, record),
        categories=_categories(record.get("categories")),
        version=_latest_version(record) or (id_version or ""),
        published=_published(paper_id, record),
        updated=_updated(record),
        comments=normalise_space(str(record.get("comments") or "")),
        journal_ref=normalise_space(str(record.get("journal-ref") or "")),
        doi=_doi(record.get("doi")),
    )
    for name in ("title", "abstract", "authors", "version", "comments", "journal_ref", "doi"):
        check_text(getattr(paper, name), f"record {paper_id}: the {name}")
    check_text(" ".join(paper.categories), f"record {paper_id}: the categories")
    reason = over_limit(paper)
    if reason is not None:
        raise ValueError(f"record {paper_id}: {reason}")
    return paper


def _authors(paper_id: str, record: dict[str, Any]) -> str:
    """The record's authors string, with each author's `affiliations` in parentheses after
    their name when the record gives them; ValueError naming what is wrong with them."""
    authors = normalise_space(str(record.get("authors") or ""))
    listed = record.get("affiliations")
    if listed is None or not authors:
        return authors
    names = [part.strip() for part in written_parts(authors) if part.strip()]
    if not isinstance(listed, list) or len(listed) != len(names):
        raise ValueError(
            f"record {paper_id}: affiliations must be a list of one list per author"
            f" ({len(names)} authors)"
        )
    written = []
    for name, affiliations in zip(names, listed, strict=True):
        pieces = [_affiliation(paper_id, a) for a in affiliations or ()]
        written.append(f"{name} ({'; '.join(pieces)})" if pieces else name)
    return ", ".join(written)


def _affiliation(paper_id: str, value: Any) -> str:
    """One affiliation as the authors string writes it: its name, then `ror:<id>` if any."""
    name, ror = (value, None) if isinstance(value, str) else (None, None)
    if isinstance(value, dict):
        name, ror = value.get("name"), value.get("ror")
    if not isinstance(name, str) or not normalise_space(name).strip("(); "):
        raise ValueError(f"record {paper_id}: an affiliation without a name: {value!r:.80}")
    text = normalise_space(name).replace("(", " ").replace(")", " ").replace(";", ",")
    if ror is None:
        return " ".join(text.split())
    try:
        return f"{' '.join(text.split())} ror:{ror_id(str(ror))}"
    except InvalidRorId as e:
        raise ValueError(f"record {paper_id}: {e}") from e


def _open_bytes(path: Path) -> BufferedIOBase:
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rb")
        return path.open("rb")
    except OSError as e:
        raise MetadataError(f"cannot read {str(path)!r}: {e.strerror or e}") from e


def count_records(path: Path) -> int:
    """Non-blank lines in a metadata file: the total a progress bar counts towards."""
    with _open_bytes(path) as stream:
        try:
            lines = _lines(stream, MAX_RECORD_BYTES)
            return sum(1 for line in lines if isinstance(line, int) or line.strip())
        except _UNREADABLE:
            return 0


def _lines(stream: BufferedIOBase, max_bytes: int) -> Iterator[bytes | int]:
    """Each line's bytes, or for a line over `max_bytes` its length, read without keeping it."""
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        if len(line) <= max_bytes or line.endswith(b"\n"):
            yield line
            continue
        length = len(line)
        while not line.endswith(b"\n"):
            line = stream.readline(_SKIP_PIECE_BYTES)
            if not line:
                break
            length += len(line)
        yield length


def read_metadata(
    path: Path, limit: int | None = None, *, max_record_bytes: int = MAX_RECORD_BYTES
) -> Iterator[Paper | Skipped]:
    """Yield the papers of a metadata file, and a `Skipped` for every bad line.

    Each line is decoded on its own, so a bad byte or a record over
    `max_record_bytes` costs that line only. A duplicate id within the file
    keeps its first record. `limit` counts the papers yielded, not the lines read.
    """
    seen: set[str] = set()
    produced = 0
    with _open_bytes(path) as stream:
        try:
            for number, line in enumerate(_lines(stream, max_record_bytes), start=1):
                if limit is not None and produced >= limit:
                    return
                source = f"{path.name}:{number}"
                if isinstance(line, int):
                    yield Skipped(source, _too_long(line, max_record_bytes))
                    continue
                if not line.strip():
                    continue
                item = _parse_line(line, source, seen)
                if isinstance(item, Paper):
                    seen.add(item.id)
                    produced += 1
                yield item
        except _UNREADABLE as e:
            # A truncated or corrupt gzip stream or a broken disk: keep what was read.
            yield Skipped(f"{path.name}", f"file is unreadable past this point: {e}")


def _too_long(length: int, max_bytes: int) -> str:
    return (
        f"record is {length} bytes, over the limit of {max_bytes} bytes"
        " (PAPERCHAT_MAX_RECORD_BYTES)"
    )


def _parse_line(line: bytes, source: str, seen: set[str]) -> Paper | Skipped:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        return Skipped(source, f"not UTF-8: byte 0x{line[e.start]:02x} at byte {e.start + 1}")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        return Skipped(source, f"malformed JSON: {e.msg} at column {e.colno}")
    except RecursionError:
        return Skipped(source, "malformed JSON: nested deeper than a record can be")
    except ValueError as e:  # a number of more digits than Python converts
        return Skipped(source, f"malformed JSON: {str(e).partition(';')[0]}")
    if not isinstance(record, dict):
        return Skipped(source, "line is not a JSON object")
    try:
        paper = paper_from_record(record)
    except ValueError as e:
        return Skipped(source, str(e))
    if paper.id in seen:
        return Skipped(source, f"duplicate id {paper.id} in this file (first record kept)")
    return paper
