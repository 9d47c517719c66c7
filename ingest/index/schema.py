"""The catalog's schema: numbered migrations, applied in order when a catalog opens.

A catalog's version is the `schema_version` row of its `meta` table, the
row every paperchat has checked (older ones refuse any value but "1", so a
catalog migrated past 1 is refused by them, not misread). Version 1 is every
catalog made before migrations were numbered, with whichever of the later
columns its release had added; migration 2 brings each of them to one
schema. A new file is at 0 and runs them all.

`upgrade` takes SQLite's write lock (`BEGIN IMMEDIATE`), reads the version
again under it, applies the missing migrations and records the version, all
in one transaction: of two processes opening a catalog at once, one migrates
and the other finds it done; a migration that fails leaves the catalog as it
was. A catalog newer than this code is refused. A migration, once released,
is never edited: a change to the schema is a new one at the end.

For SQLAlchemy Core and Alembic (PostgreSQL), each migration becomes one
revision, in this order; the statements port as they are. A PostgreSQL
catalog starts empty, so it needs none of migration 2's tolerance of older
SQLite files.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from ingest.errors import PaperchatError


class SchemaError(PaperchatError):
    """The catalog's schema is newer than this paperchat's, or not a version at all."""


@dataclass(frozen=True)
class Migration:
    version: int  # the version the catalog is at once this has run
    summary: str
    apply: Callable[[sqlite3.Connection], None]  # runs inside the caller's transaction


def _statements(*sql: str) -> Callable[[sqlite3.Connection], None]:
    def apply(db: sqlite3.Connection) -> None:
        for statement in sql:
            db.execute(statement)

    return apply


_FIRST_RELEASE = _statements(
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS papers (
        id TEXT PRIMARY KEY,
        is_arxiv INTEGER NOT NULL,
        version TEXT NOT NULL,
        title TEXT NOT NULL,
        authors TEXT NOT NULL,
        abstract TEXT NOT NULL,
        categories TEXT NOT NULL,
        published TEXT NOT NULL,
        updated TEXT NOT NULL,
        comments TEXT NOT NULL,
        source TEXT NOT NULL,
        abstract_hash TEXT,
        fulltext_hash TEXT,
        fulltext_version TEXT,
        pdf_sha256 TEXT,
        pdf_pages INTEGER
    )""",
    """CREATE TABLE IF NOT EXISTS chunks (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        paper_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        number INTEGER NOT NULL,
        section TEXT NOT NULL,
        page_start INTEGER NOT NULL,
        page_end INTEGER NOT NULL,
        text TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS chunks_unit ON chunks (paper_id, kind)",
    """CREATE TABLE IF NOT EXISTS pending (
        paper_id TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (paper_id, kind)
    )""",
)

# Columns releases before numbered migrations added, each when a catalog lacked it.
_RELEASED_COLUMNS = {
    "papers": (("pdf_file", "TEXT"), ("field_sources", "TEXT"), ("pdf_stage", "TEXT"),
               ("pdf_path", "TEXT")),
    "chunks": (("boxes", "TEXT"),),
}  # fmt: skip

_RELEASED_TABLES = _statements(
    # BM25 moved from here to the lexical index.
    "DROP TABLE IF EXISTS chunks_fts",
    """CREATE TABLE IF NOT EXISTS paper_authors (
        paper_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        written TEXT NOT NULL,
        given TEXT NOT NULL,
        surname TEXT NOT NULL,
        PRIMARY KEY (paper_id, position)
    )""",
    # Covering: a name's spellings and papers are read from the index alone.
    "CREATE INDEX IF NOT EXISTS paper_authors_name"
    " ON paper_authors (surname, given, written, paper_id)",
    """CREATE TABLE IF NOT EXISTS names (
        paper_id TEXT NOT NULL,
        name TEXT NOT NULL,
        folded TEXT NOT NULL,
        long_form TEXT NOT NULL,
        long_key TEXT NOT NULL,
        defined INTEGER NOT NULL,
        source TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (paper_id, name, long_form)
    )""",
    "CREATE INDEX IF NOT EXISTS names_name ON names (name)",
    "CREATE INDEX IF NOT EXISTS names_folded ON names (folded)",
    "CREATE INDEX IF NOT EXISTS names_long_key ON names (long_key) WHERE long_key != ''",
)


def _released_additions(db: sqlite3.Connection) -> None:
    """What the releases before numbered migrations added at open, whichever of it a
    version 1 catalog already has: columns, the author and name tables, no BM25 table."""
    for table, columns in _RELEASED_COLUMNS.items():
        present = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
        for column, kind in columns:
            if column not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    _RELEASED_TABLES(db)


def _record_references(db: sqlite3.Connection) -> None:
    """The record's `journal-ref` and DOI, on a catalog that lacks them."""
    present = {str(row[1]) for row in db.execute("PRAGMA table_info(papers)")}
    for column in ("journal_ref", "doi"):
        if column not in present:
            db.execute(f"ALTER TABLE papers ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")


_CITATIONS = _statements(
    """CREATE TABLE IF NOT EXISTS paper_references (
        paper_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        title TEXT NOT NULL,
        authors TEXT NOT NULL,
        year INTEGER,
        venue TEXT NOT NULL,
        arxiv_id TEXT NOT NULL,
        doi TEXT NOT NULL,
        title_key TEXT NOT NULL,
        PRIMARY KEY (paper_id, position)
    )""",
    "CREATE INDEX IF NOT EXISTS paper_references_arxiv ON paper_references (arxiv_id)"
    " WHERE arxiv_id != ''",
    "CREATE INDEX IF NOT EXISTS paper_references_doi ON paper_references (doi) WHERE doi != ''",
    "CREATE INDEX IF NOT EXISTS paper_references_title ON paper_references (title_key)"
    " WHERE title_key != ''",
    """CREATE TABLE IF NOT EXISTS paper_titles (
        paper_id TEXT PRIMARY KEY,
        title_key TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS paper_titles_key ON paper_titles (title_key) WHERE title_key != ''",
    "CREATE INDEX IF NOT EXISTS papers_doi ON papers (lower(doi)) WHERE doi != ''",
)

_RESEARCHERS_AND_INSTITUTIONS = _statements(
    "CREATE TABLE IF NOT EXISTS researcher_ids (id TEXT PRIMARY KEY, key TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS institutions (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        parent_id TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS paper_institutions (
        paper_id TEXT NOT NULL,
        institution_id TEXT NOT NULL,
        source TEXT NOT NULL,
        PRIMARY KEY (paper_id, institution_id)
    )""",
    "CREATE INDEX IF NOT EXISTS paper_institutions_institution"
    " ON paper_institutions (institution_id, paper_id)",
)

MIGRATIONS = (
    Migration(1, "papers, chunks, pending units and meta, as first released", _FIRST_RELEASE),
    Migration(2, "PDF files, field sources, chunk boxes, authors and names", _released_additions),
    Migration(3, "where a paper appeared and its DOI, from the record", _record_references),
    Migration(4, "the papers' references and title keys, who cites whom", _CITATIONS),
    Migration(
        5,
        "researchers' ids, institutions and the papers' affiliations",
        _RESEARCHERS_AND_INSTITUTIONS,
    ),
)
LATEST = MIGRATIONS[-1].version


def version_of(db: sqlite3.Connection, where: str) -> int:
    """The version the catalog at `where` (for messages) is at; 0 for a new file."""
    tables = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    if db.execute(tables).fetchone() is None:
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        return 0
    try:
        return int(row[0])
    except ValueError:
        raise SchemaError(
            f"the catalog {where!r} has schema {row[0]!r}, not a version paperchat writes"
        ) from None


def _check_not_newer(found: int, where: str) -> None:
    if found > LATEST:
        raise SchemaError(
            f"the catalog {where!r} has schema {found}, newer than this paperchat's {LATEST}:"
            " open it with the paperchat that wrote it, or a newer one"
        )


def upgrade(db: sqlite3.Connection, where: str) -> int:
    """Bring the catalog to `LATEST`, its rows kept; returns the version it was at.

    `db` must not be in a transaction (Python's sqlite3 in its default mode).
    """
    found = version_of(db, where)
    _check_not_newer(found, where)
    if found == LATEST:
        return found
    with db:
        db.execute("BEGIN IMMEDIATE")
        found = version_of(db, where)  # another process may have migrated it meanwhile
        _check_not_newer(found, where)
        for migration in MIGRATIONS[found:]:
            migration.apply(db)
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(migration.version),),
            )
    return found
