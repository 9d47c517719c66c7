"""The catalog's migrations: every catalog a release left is brought to the latest schema
with its rows, once, under a lock, and a catalog newer than the code is refused."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog, CatalogError, PaperRow, PdfRecord
from ingest.index.name_catalog import NameCatalog, NameRow
from ingest.index.records import Box, Paper
from ingest.index.tables import migrations, schema, steps
from ingest.index.tables.database import CatalogDb
from ingest.index.tables.schema import SchemaError
from ingest.index.tables.steps import LATEST, MIGRATIONS, Migration
from tests.support.data import ROOT
from tests.support.running.concurrency import at_once
from tests.support.running.locks import write_lock_held
from tests.support.worlds.catalogs import FIRST_RELEASE_SCHEMA, RELEASED_SCHEMA, released_catalog

RETRO = Paper(
    id="2112.04426",
    title="Improving language models by retrieving from trillions of tokens",
    authors="Sebastian Borgeaud, Arthur Mensch",
    abstract="We enhance auto-regressive language models.",
    categories=("cs.CL", "cs.LG"),
    version="v2",
    published="2021-12-08",
    updated="2022-02-07",
)
ABSTRACT_ID = f"{RETRO.id}#abstract-0@a1"
FULLTEXT_ID = f"{RETRO.id}#fulltext-0@f1"
SOURCES = '{"abstract": "record", "authors": "record", "title": "record"}'
# The rows a catalog of the last release before numbered migrations held, in every table.
RELEASED_ROWS = (
    "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories, published,"
    " updated, comments, source, abstract_hash, fulltext_hash, fulltext_version, pdf_sha256,"
    " pdf_pages, pdf_file, pdf_path, field_sources, pdf_stage) VALUES ('2112.04426', 1, 'v2',"
    " 'Improving language models by retrieving from trillions of tokens',"
    " 'Sebastian Borgeaud, Arthur Mensch', 'We enhance auto-regressive language models.',"
    " 'cs.CL cs.LG', '2021-12-08', '2022-02-07', '', 'metadata', 'a1', 'f1', 'v2', 'sha', 9,"
    f" 'retro', '/papers/retro.pdf', '{SOURCES}', '3')",
    "INSERT INTO chunks (id, paper_id, kind, number, section, page_start, page_end, text, boxes)"
    f" VALUES ('{ABSTRACT_ID}', '2112.04426', 'abstract', 0, 'Abstract', 0, 0, 'We enhance.',"
    f" NULL), ('{FULLTEXT_ID}', '2112.04426', 'fulltext', 0, '2 Method', 3, 3, 'Chunks.',"
    """ '[{"page": 3, "x0": 0.1, "y0": 0.2, "x1": 0.5, "y1": 0.25}]')""",
    "INSERT INTO pending (paper_id, kind) VALUES ('2112.04426', 'fulltext')",
    "INSERT INTO paper_authors (paper_id, position, written, given, surname) VALUES"
    " ('2112.04426', 0, 'Sebastian Borgeaud', 'sebastian', 'borgeaud'),"
    " ('2112.04426', 1, 'Arthur Mensch', 'arthur', 'mensch')",
    "INSERT INTO names (paper_id, name, folded, long_form, long_key, defined, source, count)"
    " VALUES ('2112.04426', 'RETRO', 'retro', 'Retrieval-Enhanced Transformer',"
    " 'retrieval enhanced transformer', 2, 'abstract', 5)",
    "INSERT INTO meta (key, value) VALUES ('names_version', '7')",
)


def _version(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    finally:
        db.close()
    return str(row[0])


def _shape(path: Path) -> dict[str, object]:
    """Each table's columns (name, type, not null, key) and indexes, in name order."""
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            table: (
                sorted(r[1:4] + r[5:] for r in db.execute(f"PRAGMA table_info({table})")),
                sorted(
                    (r[1], r[4], [c[2] for c in db.execute(f"PRAGMA index_info({r[1]})")])
                    for r in db.execute(f"PRAGMA index_list({table})")
                ),
            )
            for table in sorted(tables)
        }
    finally:
        db.close()


def test_the_migrations_are_numbered_one_by_one_from_one() -> None:
    versions = [migration.version for migration in MIGRATIONS]

    assert versions == list(range(1, len(MIGRATIONS) + 1))
    assert versions[-1] == LATEST


def test_a_new_catalog_runs_every_migration_and_records_the_latest_version(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"

    Catalog(path).close()

    assert _version(path) == str(LATEST)
    assert "chunks_fts" not in _shape(path)


def test_a_released_catalog_reaches_the_latest_version_with_every_row(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, RELEASED_SCHEMA, *RELEASED_ROWS)

    catalog = Catalog(path)

    sources = {"abstract": "record", "authors": "record", "title": "record"}
    assert catalog.paper_row(RETRO.id) == PaperRow(RETRO, "metadata", True, sources)
    assert catalog.pdf_record(RETRO.id) == PdfRecord("/papers/retro.pdf", "sha", 9)
    assert catalog.resolve_id("retro") == RETRO.id
    assert catalog.chunk_ids(RETRO.id) == [ABSTRACT_ID, FULLTEXT_ID]
    assert catalog.chunk_boxes(FULLTEXT_ID) == (Box(3, 0.1, 0.2, 0.5, 0.25),)
    assert catalog.pending_units() == [(RETRO.id, "fulltext")]
    person = catalog.person("S. Borgeaud")
    assert person is not None
    assert catalog.paper_ids_of(person) == [RETRO.id]
    names = NameCatalog(catalog)
    # The names and the version that mined them are kept; a newer version mines again.
    assert catalog.get_meta("names_version") == "7"
    assert names.of_paper(RETRO.id) == [
        NameRow(RETRO.id, "RETRO", "Retrieval-Enhanced Transformer", 2, "abstract", 5)
    ]
    catalog.close()
    assert _version(path) == str(LATEST)


def test_a_catalog_from_any_release_has_the_schema_of_a_new_one_once_opened(
    tmp_path: Path,
) -> None:
    released, first, new = (tmp_path / f"{name}.sqlite" for name in ("released", "first", "new"))
    released_catalog(released, RELEASED_SCHEMA)
    released_catalog(first, FIRST_RELEASE_SCHEMA)

    for path in (released, first, new):
        Catalog(path).close()

    assert _shape(released) == _shape(new)
    assert _shape(first) == _shape(new)


def test_a_first_release_catalog_keeps_its_rows_and_gets_its_author_index(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(
        path,
        FIRST_RELEASE_SCHEMA,
        "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories,"
        " published, updated, comments, source, abstract_hash) VALUES ('2112.04426', 1, 'v2',"
        " 'RETRO', 'Sebastian Borgeaud', '', 'cs.CL', '', '', '', 'metadata', 'a1')",
        "INSERT INTO chunks (id, paper_id, kind, number, section, page_start, page_end, text)"
        f" VALUES ('{ABSTRACT_ID}', '2112.04426', 'abstract', 0, 'Abstract', 0, 0, 'RETRO')",
    )

    catalog = Catalog(path)

    row = catalog.paper_row(RETRO.id)
    assert row is not None
    assert (row.paper.title, row.field_sources) == (
        "RETRO",
        {"title": "record", "authors": "record"},
    )
    assert [c.text for c in catalog.unit_chunks(RETRO.id, "abstract")] == ["RETRO"]
    assert catalog.chunk_boxes(ABSTRACT_ID) is None
    person = catalog.person("Sebastian Borgeaud")
    assert person is not None
    assert catalog.paper_ids_of(person) == [RETRO.id]


def test_opening_a_catalog_again_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, RELEASED_SCHEMA, *RELEASED_ROWS)
    Catalog(path).close()
    before = (_shape(path), path.read_bytes())

    Catalog(path).close()

    assert (_shape(path), path.read_bytes()) == before


def test_a_catalog_newer_than_this_paperchat_is_refused_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).set_meta("schema_version", str(LATEST + 1))

    with pytest.raises(SchemaError, match=f"schema {LATEST + 1}, newer than this paperchat's"):
        Catalog(path)

    assert _version(path) == str(LATEST + 1)


def test_a_schema_version_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).set_meta("schema_version", "one")

    with pytest.raises(SchemaError, match="has schema 'one'"):
        Catalog(path)


def _later(monkeypatch: pytest.MonkeyPatch, directory: Path, *added: Migration) -> int:
    """`added` after the released migrations, each with its revision of the Alembic chain
    (written in `directory`); the version they end at."""
    directory.mkdir()
    for migration in added:
        version = migration.version
        (directory / f"catalog_{version:04d}.py").write_text(
            "from ingest.index.tables.migrations import apply_step\n"
            f"revision = {migrations.revision_id(version)!r}\n"
            f"down_revision = {migrations.revision_id(version - 1)!r}\n"
            f"def upgrade():\n    apply_step({version})\n",
            encoding="utf-8",
        )
    monkeypatch.setattr(steps, "MIGRATIONS", (*MIGRATIONS, *added))
    monkeypatch.setattr(steps, "LATEST", added[-1].version)
    monkeypatch.setattr(migrations, "VERSION_DIRS", (*migrations.VERSION_DIRS, directory))
    return added[-1].version


def test_a_failing_migration_leaves_the_catalog_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, FIRST_RELEASE_SCHEMA)

    def half_done(db: CatalogDb) -> None:
        db.execute("ALTER TABLE papers ADD COLUMN extra TEXT")
        db.execute("INSERT INTO no_such_table VALUES (1)")

    _later(monkeypatch, tmp_path / "added", Migration(LATEST + 1, "fails half way", half_done))
    before = _shape(path)

    with pytest.raises(CatalogError, match="no such table: no_such_table"):
        Catalog(path)

    assert _shape(path) == before
    assert _version(path) == "1"


def test_catalogs_opened_at_once_are_migrated_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, RELEASED_SCHEMA, *RELEASED_ROWS)

    def slow_column(db: CatalogDb) -> None:
        # Adding the column twice would fail: only one opener may run this.
        db.execute("ALTER TABLE papers ADD COLUMN extra TEXT")
        time.sleep(0.2)

    latest = _later(
        monkeypatch, tmp_path / "added", Migration(LATEST + 1, "a column, slowly", slow_column)
    )
    failures = at_once(lambda: Catalog(path).close(), catching=(PaperchatError,))

    assert failures == []
    assert _version(path) == str(latest)
    assert Catalog(path).paper_row(RETRO.id) is not None


def test_two_processes_opening_a_released_catalog_both_open_it(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, FIRST_RELEASE_SCHEMA)
    code = f"import pathlib, ingest.index.catalog as c; c.Catalog(pathlib.Path({str(path)!r}))"

    processes = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT) for _ in range(2)]
    codes = [process.wait(timeout=60) for process in processes]

    assert codes == [0, 0]
    assert _version(path) == str(LATEST)


def test_a_catalog_turned_to_wal_while_another_process_writes_waits_for_it(
    tmp_path: Path,
) -> None:
    # SQLite refuses the switch to WAL at once, with no wait, while another connection holds
    # the write lock of a file still in the rollback journal: the opener must wait for it.
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, FIRST_RELEASE_SCHEMA)
    with write_lock_held(path, 0.5) as released:
        catalog = Catalog(path)
        opened = time.monotonic()

    mode = catalog.db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert len(released) == 1
    assert opened >= released[0], "opened before the writer let go"
    assert _version(path) == str(LATEST)


def _recorded_revision(db: CatalogDb) -> str:
    rows = db.execute(f"SELECT version_num FROM {migrations.VERSION_TABLE}").fetchall()
    assert len(rows) == 1
    return str(rows[0][0])


def test_the_alembic_chain_has_one_revision_per_migration_in_order() -> None:
    assert schema.revisions() == [migrations.revision_id(m.version) for m in MIGRATIONS]


def test_a_catalog_and_the_service_tables_record_their_chains_apart(
    catalog_location: str,
) -> None:
    from chat.service.storage.migrations import head_revision, upgrade_database

    url = catalog_location if "://" in catalog_location else f"sqlite:///{catalog_location}"
    upgrade_database(url)  # the service's tables first, in the same database
    catalog = Catalog(catalog_location)
    service = catalog.db.execute("SELECT version_num FROM alembic_version").fetchall()

    assert _recorded_revision(catalog.db) == migrations.revision_id(LATEST)
    assert [row[0] for row in service] == [head_revision()]
    catalog.close()


def test_a_catalog_migrated_before_its_chain_was_recorded_runs_only_the_new_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).close()
    db = CatalogDb(path)
    db.execute(f"DROP TABLE {migrations.VERSION_TABLE}")  # as a catalog at 7 was left
    db.close()
    ran: list[int] = []
    latest = _later(monkeypatch, tmp_path / "added", Migration(LATEST + 1, "new", print))

    def recorder(version: int) -> Callable[[CatalogDb], None]:
        return lambda _db: ran.append(version)

    recording = tuple(
        Migration(m.version, m.summary, recorder(m.version)) for m in steps.MIGRATIONS
    )
    monkeypatch.setattr(steps, "MIGRATIONS", recording)

    catalog = Catalog(path)

    assert ran == [latest]
    assert _recorded_revision(catalog.db) == migrations.revision_id(latest)
    assert _version(path) == str(latest)
    catalog.close()


def test_a_recorded_revision_that_disagrees_with_the_schema_version_follows_the_version(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    released_catalog(path, FIRST_RELEASE_SCHEMA)
    db = CatalogDb(path)
    db.execute(
        f"CREATE TABLE {migrations.VERSION_TABLE} (version_num VARCHAR(32) NOT NULL PRIMARY KEY)"
    )
    db.execute(
        f"INSERT INTO {migrations.VERSION_TABLE} VALUES (?)", (migrations.revision_id(LATEST),)
    )
    db.close()

    catalog = Catalog(path)

    assert _shape(path) == _shape(_new_catalog(tmp_path / "new.sqlite"))
    assert _recorded_revision(catalog.db) == migrations.revision_id(LATEST)
    catalog.close()


def _new_catalog(path: Path) -> Path:
    Catalog(path).close()
    return path
