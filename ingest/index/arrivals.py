"""Papers in the order they arrived in the catalog, and the newest by date.

A paper's row keeps its SQLite rowid for life (a new version updates the row),
and a new paper's rowid is above every earlier one's: "the papers after rowid
N" are the papers added since N was read, by any process writing the catalog.
"""

from __future__ import annotations

import sqlite3


def last_arrival(db: sqlite3.Connection) -> int:
    """The rowid of the paper added last; 0 for an empty catalog."""
    row = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM papers").fetchone()
    return int(row[0])


def arrived_after(db: sqlite3.Connection, rowid: int, limit: int) -> list[tuple[int, str]]:
    """(rowid, paper id) of at most `limit` papers added after `rowid`, in arrival order."""
    query = "SELECT rowid, id FROM papers WHERE rowid > ? ORDER BY rowid LIMIT ?"
    return [(int(r[0]), str(r[1])) for r in db.execute(query, (rowid, limit))]


def newest_ids(
    db: sqlite3.Connection, limit: int, *, category: str = "", words: tuple[str, ...] = ()
) -> list[str]:
    """The ids of the `limit` newest papers (first version, else last update), maybe only
    those in `category` or whose title or abstract hold every one of `words`."""
    where, params = ["1"], []
    if category:
        # Categories are stored separated by single spaces.
        where.append("instr(' ' || categories || ' ', ?) > 0")
        params.append(f" {category} ")
    for word in words:
        where.append("instr(lower(title || ' ' || abstract), ?) > 0")
        params.append(word.lower())
    query = (
        f"SELECT id FROM papers WHERE {' AND '.join(where)}"
        " ORDER BY COALESCE(NULLIF(published, ''), updated) DESC, id DESC LIMIT ?"
    )
    return [str(r[0]) for r in db.execute(query, (*params, limit))]
