from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ingest.index.catalog import Catalog, CatalogError


def test_opening_an_older_catalog_adds_new_columns_and_keeps_rows(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE papers DROP COLUMN pdf_file")
    db.execute(
        "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories,"
        " published, updated, comments, source) VALUES"
        " ('1706.03762', 1, 'v7', 'Attention Is All You Need', '', '', 'cs.CL', '', '', '',"
        " 'metadata')"
    )
    db.commit()
    db.close()

    catalog = Catalog(path)

    paper = catalog.get_paper("1706.03762")
    assert paper is not None
    assert paper.title == "Attention Is All You Need"
    assert catalog.resolve_id("1706.03762") == "1706.03762"
    assert catalog.resolve_id("attention") is None


def test_a_catalog_from_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).set_meta("schema_version", "99")

    with pytest.raises(CatalogError, match="schema 99"):
        Catalog(path)


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    path.write_bytes(b"not a database at all" * 100)

    with pytest.raises(CatalogError, match="cannot open the catalog"):
        Catalog(path)
