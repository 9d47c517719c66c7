"""The export API's answer: an Atom feed of papers, arXiv's error entries and paging.

`ArxivApiError` is defined here, beside the parser, because a feed that cannot
be read raises it just as a failed request does.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ingest.errors import PaperchatError
from ingest.index.records import InvalidPaperId, Paper, split_arxiv_id
from ingest.sources.dates import first_submission, iso_date

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
_ERROR_ID_PREFIX = "http://arxiv.org/api/errors"


class ArxivApiError(PaperchatError):
    """A request to arXiv failed for good, or its answer could not be read."""


@dataclass(frozen=True)
class FeedPage:
    """One answer of the query API: its papers, arXiv's error messages, the paging."""

    papers: tuple[Paper, ...]
    errors: tuple[str, ...]
    entry_count: int
    total_results: int | None


def parse_feed(xml: bytes, source: str) -> FeedPage:
    """Read an export API Atom feed; `source` (its URL) names it in errors."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as e:
        raise ArxivApiError(f"cannot parse the Atom feed from {source}: {e}") from e
    if root.tag != f"{_ATOM}feed":
        raise ArxivApiError(f"cannot parse the Atom feed from {source}: root is {root.tag!r}")
    papers: list[Paper] = []
    errors: list[str] = []
    entries = root.findall(f"{_ATOM}entry")
    for entry in entries:
        parsed = _parse_entry(entry, source)
        if isinstance(parsed, Paper):
            papers.append(parsed)
        elif parsed is not None:
            errors.append(parsed)
    total = _text(root, f"{_OPENSEARCH}totalResults")
    return FeedPage(
        tuple(papers), tuple(errors), len(entries), int(total) if total.isdigit() else None
    )


def _parse_entry(entry: ET.Element, source: str) -> Paper | str | None:
    """A paper, arXiv's error message, or None for an empty entry (an unknown id)."""
    entry_id = _text(entry, f"{_ATOM}id")
    if entry_id.startswith(_ERROR_ID_PREFIX):
        fragment = entry_id.partition("#")[2].replace("_", " ")
        return _text(entry, f"{_ATOM}summary") or fragment or "unexplained error"
    title = _text(entry, f"{_ATOM}title")
    if not title:
        return None
    try:
        paper_id, version = split_arxiv_id(entry_id.partition("/abs/")[2])
    except InvalidPaperId as e:
        raise ArxivApiError(f"cannot read entry id {entry_id!r} in the feed from {source}") from e
    names = (" ".join((n.text or "").split()) for n in entry.iterfind(f"{_ATOM}author/{_ATOM}name"))
    return Paper(
        id=paper_id,
        version=version or "",
        title=title,
        abstract=_text(entry, f"{_ATOM}summary"),
        authors=", ".join(name for name in names if name),
        categories=_categories(entry),
        # The feed's `published` is the first version's time, `updated` the latest's.
        published=first_submission(paper_id, iso_date(_text(entry, f"{_ATOM}published"))),
        updated=iso_date(_text(entry, f"{_ATOM}updated")),
        comments=_text(entry, f"{_ARXIV}comment"),
        journal_ref=_text(entry, f"{_ARXIV}journal_ref"),
        doi=_text(entry, f"{_ARXIV}doi").partition(" ")[0],
    )


def _text(element: ET.Element, path: str) -> str:
    return " ".join((element.findtext(path) or "").split())


def _categories(entry: ET.Element) -> tuple[str, ...]:
    primary = entry.find(f"{_ARXIV}primary_category")
    terms = [primary.get("term", "")] if primary is not None else []
    terms += [category.get("term", "") for category in entry.iterfind(f"{_ATOM}category")]
    return tuple(dict.fromkeys(term.strip() for term in terms if term.strip()))
