"""CSL-JSON, as Zotero exports it: a list of items, each an object with `title`, `DOI`,
`URL`, `number` (arXiv's id for a preprint) and `container-title`. An item that is not
an object, or has a field of the wrong type, is listed as unreadable by its position."""

from __future__ import annotations

import json

from chat.library.imports.entries import (
    MAX_ENTRIES,
    Entry,
    Reading,
    Unreadable,
    UnreadableFile,
    arxiv_id_in,
    doi_in,
    eprint_id,
    plain,
)

_TEXT_FIELDS = ("title", "DOI", "URL", "number", "container-title", "note", "archive_location")


def _entry(item: object, at: str) -> Entry | Unreadable:
    if not isinstance(item, dict):
        return Unreadable(at, "an item is a JSON object")
    fields: dict[str, str] = {}
    for name in _TEXT_FIELDS:
        value = item.get(name, "")
        if not isinstance(value, str | int):
            return Unreadable(at, f"its {name!r} is not text")
        fields[name] = str(value)
    places = (fields[k] for k in ("URL", "DOI", "container-title", "note", "archive_location"))
    return Entry(
        at=at,
        title=plain(fields["title"]),
        arxiv_id=eprint_id(fields["number"], "") or arxiv_id_in(places),
        doi=doi_in(fields["DOI"]),
    )


def read_csl_json(text: str) -> Reading:
    """UnreadableFile when the text is no JSON list (or one object, read as a list of one)."""
    try:
        items = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise UnreadableFile(f"not CSL-JSON: {e}") from e
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise UnreadableFile("CSL-JSON is a list of items")
    if len(items) > MAX_ENTRIES:
        raise UnreadableFile(f"a file holds at most {MAX_ENTRIES} entries")
    reading = Reading("csl-json")
    for position, item in enumerate(items, start=1):
        read = _entry(item, f"item {position}")
        if isinstance(read, Entry):
            reading.entries.append(read)
        else:
            reading.unreadable.append(read)
    return reading
