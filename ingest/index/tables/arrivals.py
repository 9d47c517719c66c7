"""Papers in the order they arrived in the catalog, and the newest by date.

A paper keeps its `arrival` number for life (a new version updates the row),
and a new paper's number is above every earlier one's, and never reused
(`ingest/index/tables/changes.py` hands them out in commit order): "the papers after
N" are the papers added since N was read, by any process writing the catalog.
"""

from __future__ import annotations

from ingest.index.tables.database import CatalogDb


def last_arrival(db: CatalogDb) -> int:
    """The arrival number of the paper added last; 0 for an empty catalog."""
    row = db.execute("SELECT COALESCE(MAX(arrival), 0) FROM papers").fetchone()
    return int(row[0])


def arrived_after(db: CatalogDb, arrival: int, limit: int) -> list[tuple[int, str]]:
    """(arrival, paper id) of at most `limit` papers added after `arrival`, in that order."""
    query = "SELECT arrival, id FROM papers WHERE arrival > ? ORDER BY arrival LIMIT ?"
    return [(int(r[0]), str(r[1])) for r in db.execute(query, (arrival, limit))]


def newest_ids(
    db: CatalogDb, limit: int, *, category: str = "", words: tuple[str, ...] = ()
) -> list[str]:
    """The ids of the `limit` newest papers (first version, else last update), maybe only
    those in `category` or whose title or abstract hold every one of `words`."""
    where, params = ["1 = 1"], []
    if category:
        # Categories are stored separated by single spaces.
        where.append(db.contains("' ' || categories || ' '"))
        params.append(f" {category} ")
    for word in words:
        where.append(db.contains("lower(title || ' ' || abstract)"))
        params.append(word.lower())
    query = (
        f"SELECT id FROM papers WHERE {' AND '.join(where)}"
        " ORDER BY COALESCE(NULLIF(published, ''), updated) DESC, id DESC LIMIT ?"
    )
    return [str(r[0]) for r in db.execute(query, (*params, limit))]


def newest_date(db: CatalogDb) -> str:
    """The latest day any record names (a version's or a record's update, or a first
    version's): when the catalog's newest news is from; "" for an empty catalog."""
    row = db.execute("SELECT MAX(updated), MAX(published) FROM papers").fetchone()
    # A month alone (`2025-06`) names no day, and would sort after every day of its month.
    return max((str(value) for value in row if value and len(str(value)) >= 10), default="")
