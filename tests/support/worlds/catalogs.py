"""Catalog files as releases before numbered migrations left them (schema version 1).

`RELEASED_SCHEMA` is what the last of those releases made of a new file,
its statements copied here as they were (from `ingest/index/catalog.py`,
`authors.py` and `name_catalog.py` of that release), so that the upgrade is
tested against the real thing rather than against what the migrations
take it to have been.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

RELEASED_SCHEMA = """
CREATE TABLE IF NOT EXISTS paper_authors (
    paper_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    written TEXT NOT NULL,
    given TEXT NOT NULL,
    surname TEXT NOT NULL,
    PRIMARY KEY (paper_id, position)
);
CREATE INDEX IF NOT EXISTS paper_authors_name ON paper_authors (surname, given, written, paper_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
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
    pdf_pages INTEGER,
    pdf_file TEXT,
    pdf_path TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    paper_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    number INTEGER NOT NULL,
    section TEXT NOT NULL,
    page_start INTEGER NOT NULL,
    page_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    boxes TEXT
);
CREATE INDEX IF NOT EXISTS chunks_unit ON chunks (paper_id, kind);
CREATE TABLE IF NOT EXISTS pending (
    paper_id TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (paper_id, kind)
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1');
ALTER TABLE papers ADD COLUMN field_sources TEXT;
ALTER TABLE papers ADD COLUMN pdf_stage TEXT;
DROP TABLE IF EXISTS chunks_fts;
INSERT OR REPLACE INTO meta (key, value) VALUES ('author_index', '1');
CREATE TABLE IF NOT EXISTS names (
    paper_id TEXT NOT NULL,
    name TEXT NOT NULL,
    folded TEXT NOT NULL,
    long_form TEXT NOT NULL,
    long_key TEXT NOT NULL,
    defined INTEGER NOT NULL,
    source TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (paper_id, name, long_form)
);
CREATE INDEX IF NOT EXISTS names_name ON names (name);
CREATE INDEX IF NOT EXISTS names_folded ON names (folded);
CREATE INDEX IF NOT EXISTS names_long_key ON names (long_key) WHERE long_key != '';
"""

# The first release: no PDF file names or paths, no boxes, no authors or names, and BM25
# in the catalog itself.
FIRST_RELEASE_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE papers (
    id TEXT PRIMARY KEY, is_arxiv INTEGER NOT NULL, version TEXT NOT NULL,
    title TEXT NOT NULL, authors TEXT NOT NULL, abstract TEXT NOT NULL,
    categories TEXT NOT NULL, published TEXT NOT NULL, updated TEXT NOT NULL,
    comments TEXT NOT NULL, source TEXT NOT NULL, abstract_hash TEXT, fulltext_hash TEXT,
    fulltext_version TEXT, pdf_sha256 TEXT, pdf_pages INTEGER
);
CREATE TABLE chunks (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, paper_id TEXT NOT NULL,
    kind TEXT NOT NULL, number INTEGER NOT NULL, section TEXT NOT NULL,
    page_start INTEGER NOT NULL, page_end INTEGER NOT NULL, text TEXT NOT NULL
);
CREATE INDEX chunks_unit ON chunks (paper_id, kind);
CREATE VIRTUAL TABLE chunks_fts USING fts5 (terms, tokenize = 'unicode61');
CREATE TABLE pending (paper_id TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (paper_id, kind));
INSERT INTO meta (key, value) VALUES ('schema_version', '1');
"""


def released_catalog(path: Path, schema: str = RELEASED_SCHEMA, *rows: str) -> None:
    """Make the catalog file `path` as a release left it: its `schema`, then `rows`
    (SQL statements that fill it)."""
    db = sqlite3.connect(path)
    try:
        db.executescript(schema)
        with db:
            for statement in rows:
                db.execute(statement)
    finally:
        db.close()


def as_released(path: Path, *edits: str) -> None:
    """Turn the catalog at `path` into one an earlier release left: `edits` (SQL, e.g.
    dropping a column that release did not have yet), and back to schema version 1,
    which recorded no Alembic chain."""
    db = sqlite3.connect(path)
    try:
        with db:
            for statement in edits:
                db.execute(statement)
            db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
            db.execute("DROP TABLE IF EXISTS catalog_alembic_version")
    finally:
        db.close()
