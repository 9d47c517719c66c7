"""Researchers' stable ids: one per author name key, kept in the catalog's `researcher_ids`.

A researcher id is the first 40 bits of the SHA-256 of a name key as the
author index keys it (`ingest/index/names/people.py`: "ashish vaswani"), written
in lower-case base 32 (8 letters and digits, no hyphen, so `/researchers/
<id>-<name>` splits at the first hyphen). It depends on that key alone:
ingesting papers by other people never changes it, and a catalog built
again from the same papers gives the same ids. A person written several
ways ("A. Vaswani", "Ashish Vaswani") is shown under the id of their
canonical key, the full-first-name spelling with the fewest given names;
every other key of theirs still has its own id, which the site redirects to
the canonical one. Two people with one name key share its id until a
wrong match reported on their page is split by hand; the page says it
matches by name.

The table maps ids back to keys, for the bare id; a row is added for each
key the author index writes and never removed (an id whose papers are gone
finds no person).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from typing import Final

from ingest.index.names.people import Name, Person
from ingest.index.tables.database import CatalogDb

ID_CHARS: Final = 8
ID_RE: Final = re.compile(r"^[a-z2-7]{8}$")
# Bumped when ids are made differently: the catalog then records every key's id again.
IDS_VERSION: Final = "1"


def researcher_id(key: str) -> str:
    """The id of a name key ("ashish vaswani")."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return base64.b32encode(digest[:5]).decode("ascii").lower()[:ID_CHARS]


def canonical_name(person: Person) -> Name:
    """The name whose key gives the person's id: a full first name with the fewest given
    names, then the first key in order; among initials only, likewise."""
    return min(person.names, key=lambda n: (not n.has_full_first_name, len(n.given), n.key))


def person_id(person: Person) -> str:
    return researcher_id(canonical_name(person).key)


_INSERT: Final = "INSERT INTO researcher_ids (id, key) VALUES (?, ?) ON CONFLICT DO NOTHING"


def record_ids(db: CatalogDb, keys: Iterable[str]) -> None:
    """Within the caller's transaction: an id row for each key not yet recorded."""
    db.executemany(_INSERT, ((researcher_id(key), key) for key in keys))


def record_all(db: CatalogDb) -> int:
    """Within the caller's transaction: id rows for every key in the author index; how
    many keys it holds."""
    rows = db.execute("SELECT DISTINCT given, surname FROM paper_authors").fetchall()
    record_ids(db, (f"{given} {surname}".strip() for given, surname in rows))
    return len(rows)


def key_of(db: CatalogDb, rid: str) -> str | None:
    """The name key an id was made from, None for an id no indexed author had."""
    row = db.execute("SELECT key FROM researcher_ids WHERE id = ?", (rid,)).fetchone()
    return None if row is None else str(row[0])


def bylines(db: CatalogDb, paper_ids: list[str]) -> dict[str, list[tuple[str, str, str]]]:
    """Each paper's authors in order, as (written, given, surname)."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for start in range(0, len(paper_ids), 500):
        part = paper_ids[start : start + 500]
        marks = ",".join("?" * len(part))
        rows = db.execute(
            "SELECT paper_id, written, given, surname FROM paper_authors"
            f" WHERE paper_id IN ({marks}) ORDER BY paper_id, position",
            part,
        )
        for paper_id, written, given, surname in rows:
            found.setdefault(str(paper_id), []).append((written, given, surname))
    return found
