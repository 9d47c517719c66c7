"""Copies a catalog file into another catalog (a library moving to a shared database).

Every table is copied row for row in one transaction of the target: a copy
that fails leaves the target empty, as it was. Columns the two do not share
(a chunk's own row number) are left for the target to fill. The change log
is copied too, and a PostgreSQL target's numbering continues after it, so the
papers keep their arrival order and replicas built from the source stay
valid.
"""

from __future__ import annotations

from ingest.index.catalog import Catalog, CatalogError
from ingest.index.tables.schema import write_meta

# In an order that a reader of the target never sees half of: the transaction is one.
TABLES = (
    "papers",
    "chunks",
    "pending",
    "paper_authors",
    "names",
    "paper_references",
    "paper_titles",
    "researcher_ids",
    "institutions",
    "paper_institutions",
    "catalog_changes",
)
# Rows read from the source at a time.
BATCH = 2000


def copy_catalog(source: Catalog, target: Catalog) -> dict[str, int]:
    """Copy every row of `source` (a SQLite catalog) into the empty `target`; rows copied
    per table. CatalogError when the target already holds papers."""
    if source.db.dialect != "sqlite":
        raise CatalogError("the catalog to copy from must be a catalog file")
    if target.stats()["papers"]:
        raise CatalogError(f"the catalog {target.db.where!r} is not empty: copy into a new one")
    copied: dict[str, int] = {}
    with target.transaction():
        for table in TABLES:
            copied[table] = _copy_table(source, target, table)
        for key, value in source.db.execute("SELECT key, value FROM meta"):
            if key != "schema_version":
                write_meta(target.db, key, value)
        if target.db.dialect == "postgresql":
            target.db.execute(
                "SELECT setval(pg_get_serial_sequence('catalog_changes', 'seq'),"
                " (SELECT COALESCE(MAX(seq), 0) + 1 FROM catalog_changes), false)"
            )
    return copied


def _copy_table(source: Catalog, target: Catalog, table: str) -> int:
    shared = source.db.columns(table) & target.db.columns(table)
    columns = sorted(shared - {"rowid"})
    names = ", ".join(columns)
    insert = f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})"
    after, count = 0, 0
    while True:
        rows = source.db.execute(
            f"SELECT rowid, {names} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (after, BATCH),
        ).fetchall()
        if not rows:
            return count
        target.db.executemany(insert, (tuple(row)[1:] for row in rows))
        after, count = int(rows[-1][0]), count + len(rows)
