"""RIS, as reference managers export it: tagged lines (`TY  - JOUR`), an entry from `TY`
to `ER`, a line that is no tag continuing the value before it. An entry without its `ER`
is listed as unreadable by the line it starts on."""

from __future__ import annotations

import re

from chat.library.imports.entries import (
    Entry,
    Reading,
    Unreadable,
    UnreadableFile,
    arxiv_id_in,
    doi_in,
    plain,
)

_TAG_RE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_TITLE_TAGS = ("TI", "T1", "CT", "BT")
_PLACE_TAGS = ("DO", "UR", "L1", "L2", "JO", "JF", "T2", "N1", "M3")


def _entry(tags: dict[str, list[str]], at: str) -> Entry:
    title = next((tags[t][0] for t in _TITLE_TAGS if tags.get(t)), "")
    places = [value for tag in _PLACE_TAGS for value in tags.get(tag, [])]
    return Entry(
        at=at,
        title=plain(title),
        arxiv_id=arxiv_id_in(places),
        doi=next((doi_in(v) for v in tags.get("DO", []) if doi_in(v)), ""),
    )


def read_ris(text: str) -> Reading:
    """UnreadableFile when no line is an RIS tag."""
    reading = Reading("ris")
    tags: dict[str, list[str]] | None = None
    start, last = 0, ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.lstrip("\ufeff").rstrip()
        match = _TAG_RE.match(line)
        if match is None:
            if tags is not None and line and last:
                tags[last][-1] += " " + line.strip()  # a value wrapped onto the next line
            continue
        tag, value = match[1], (match[2] or "").strip()
        if tag == "TY":
            if tags is not None:
                reading.unreadable.append(Unreadable(f"line {start}", "it has no ER line"))
            tags, start, last = {}, number, ""
        elif tags is None:
            continue
        elif tag == "ER":
            reading.entries.append(_entry(tags, f"line {start}"))
            tags = None
            reading.count()
        else:
            tags.setdefault(tag, []).append(value)
            last = tag
    if tags is not None:
        reading.unreadable.append(Unreadable(f"line {start}", "it has no ER line"))
    if not reading.entries and not reading.unreadable:
        raise UnreadableFile("no RIS entry (a line 'TY  - ...') in the file")
    return reading
