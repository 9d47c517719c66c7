"""The catalog's change log: which units changed, numbered in the order they committed.

Every node that serves keeps its own lexical index (`ingest/index/lexical/bm25.py`),
a replica of the catalog's chunks. A transaction that replaces or deletes a
unit appends a row here; a replica remembers the last sequence number it
applied and replays the rows after it, rewriting each unit from the catalog
as it is now, so replaying a row twice changes nothing.

Sequence numbers are handed out under the catalog's write lock (SQLite's one
writer; on PostgreSQL the advisory lock `Catalog.transaction` takes first), so
a number is never seen before a smaller one has committed: a replica that read
up to N has missed nothing below N.

A paper's first record also takes a number here, with the unit "paper": its
place in the order papers arrived (`ingest/index/tables/arrivals.py`).

Beside the log, the catalog's generation (the `meta` row `generation`) counts its
write transactions: every process and node that serves reads it to know whether
what it made from the catalog (a sitemap, the newest papers) still holds.

The log is pruned (`prune`, `paperchat index prune-changes`) down to its
latest rows; a replica that had not read up to what was pruned finds a gap
(`first_seq`) and rebuilds itself whole. Numbers are never handed out again:
SQLite's AUTOINCREMENT and PostgreSQL's identity keep counting.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ingest.index.tables.database import CatalogDb

ARRIVAL = "paper"


@dataclass(frozen=True)
class Change:
    seq: int
    paper_id: str
    unit: str  # "abstract", "fulltext", or ARRIVAL


def record(db: CatalogDb, units: Iterable[tuple[str, str]]) -> int:
    """Within the caller's write transaction: log the units as changed; the last number
    given (0 if none)."""
    last = 0
    for paper_id, unit in dict.fromkeys(units):
        row = db.execute(
            "INSERT INTO catalog_changes (paper_id, unit) VALUES (?, ?) RETURNING seq",
            (paper_id, unit),
        ).fetchone()
        last = int(row[0])
    return last


def last_seq(db: CatalogDb) -> int:
    """The number of the latest change; 0 for none."""
    row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM catalog_changes").fetchone()
    return int(row[0])


def changes_after(db: CatalogDb, seq: int, limit: int) -> list[Change]:
    """At most `limit` changes after `seq`, oldest first."""
    rows = db.execute(
        "SELECT seq, paper_id, unit FROM catalog_changes WHERE seq > ? ORDER BY seq LIMIT ?",
        (seq, limit),
    )
    return [Change(int(r[0]), str(r[1]), str(r[2])) for r in rows]


def first_seq(db: CatalogDb) -> int:
    """The number of the oldest change the log still holds; 0 for none."""
    row = db.execute("SELECT COALESCE(MIN(seq), 0) FROM catalog_changes").fetchone()
    return int(row[0])


def prune(db: CatalogDb, keep: int) -> int:
    """Delete all but the latest `keep` changes (at least one is kept, so that the latest
    number stays known); how many were deleted."""
    if keep < 1:
        raise ValueError(f"at least one change is kept, not {keep}")
    with db:
        db.lock("writes")  # as `Catalog.transaction`: the latest number holds still
        below = last_seq(db) - keep
        return db.execute("DELETE FROM catalog_changes WHERE seq <= ?", (below,)).rowcount


GENERATION = "generation"


def bump_generation(db: CatalogDb) -> None:
    """Within the caller's write transaction: the catalog's generation, one more."""
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key)"
        " DO UPDATE SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT)",
        (GENERATION,),
    )


def generation(db: CatalogDb) -> int:
    """The catalog's generation: 0 before its first write transaction."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (GENERATION,)).fetchone()
    return 0 if row is None else int(row[0])
