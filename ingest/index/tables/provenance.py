"""Where each field of a paper's record came from: a metadata record, or its PDF's page 1.

A paper known only from its PDF gets its title, authors, abstract and dates
from page 1 (`ingest.pdf.front.header`). A record from a metadata file or the
arXiv API, whether it comes first or later, wins field by field; what it
lacks, the PDF may still fill. The catalog keeps, per paper, a JSON object
`field_sources` naming each field's origin: "record" or "pdf".
"""

from __future__ import annotations

import dataclasses
import json

from ingest.index.records import Paper
from ingest.index.tables.database import Row

TRACKED_FIELDS = ("title", "authors", "abstract", "published", "updated")


def origin_of(source: str) -> str:
    """The origin a source gives its fields: "pdf" for a PDF's page 1, else "record"."""
    return "pdf" if source == "pdf" else "record"


def field_sources(row: Row) -> dict[str, str]:
    """Where each non-empty field of a stored paper came from; rows written before
    fields were tracked one by one are taken to have come, whole, from their source."""
    stored = json.loads(row["field_sources"]) if row["field_sources"] else None
    if isinstance(stored, dict):
        return {str(k): str(v) for k, v in stored.items()}
    return {name: origin_of(row["source"]) for name in TRACKED_FIELDS if row[name]}


def merge_fields(paper: Paper, origin: str, row: Row | None) -> tuple[Paper, dict[str, str]]:
    """The paper as it is to be stored, field by field, and where each field came from.

    A record's non-empty field always wins; a PDF's fills only what no record supplied.
    """
    if row is None:
        return paper, {name: origin for name in TRACKED_FIELDS if getattr(paper, name)}
    sources = field_sources(row)
    values: dict[str, str] = {}
    for name in TRACKED_FIELDS:
        new, old = getattr(paper, name), row[name]
        kept_by_record = origin == "pdf" and sources.get(name) == "record" and old
        if new and not kept_by_record:
            values[name], sources[name] = new, origin
        else:
            values[name] = old
            if not old:
                sources.pop(name, None)
    merged = dataclasses.replace(
        paper, title=values["title"], authors=values["authors"], abstract=values["abstract"],
        published=values["published"], updated=values["updated"],
    )  # fmt: skip
    return merged, sources
