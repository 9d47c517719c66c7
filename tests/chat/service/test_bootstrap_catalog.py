"""`prepare_service` brings an older catalog to the latest schema, and its author index up
to date, before any worker."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chat.service.bootstrap import prepare_catalog
from chat.settings import Settings
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.tables.steps import LATEST
from tests.support.worlds.catalogs import released_catalog


def test_an_older_catalog_gets_its_author_index_when_the_service_is_prepared(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    catalog = Catalog(settings.catalog_path)
    with catalog.transaction():
        paper = Paper(id="1706.03762", title="Attention", authors="Ashish Vaswani")
        catalog.replace_unit(paper, "metadata", "abstract", "digest", [])
    catalog.close()
    db = sqlite3.connect(settings.catalog_path)
    db.execute("DELETE FROM paper_authors")
    db.execute("DELETE FROM meta WHERE key = 'author_index'")
    db.commit()
    db.close()

    prepare_catalog(settings)

    db = sqlite3.connect(settings.catalog_path)
    rows = db.execute("SELECT paper_id, written FROM paper_authors").fetchall()
    assert rows == [("1706.03762", "Ashish Vaswani")]


def test_a_released_catalog_is_at_the_latest_schema_once_the_service_is_prepared(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    settings.catalog_path.parent.mkdir()
    released_catalog(settings.catalog_path)

    prepare_catalog(settings)

    db = sqlite3.connect(settings.catalog_path)
    version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    db.close()
    assert version == (str(LATEST),)


def test_preparing_a_data_dir_without_a_catalog_makes_none(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")

    prepare_catalog(settings)

    assert not settings.catalog_path.exists()
