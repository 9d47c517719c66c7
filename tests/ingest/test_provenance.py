"""A metadata record wins over page 1 of a PDF field by field, whichever came first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper

FROM_PDF = Paper(
    id="2112.04426",
    title="Improving language models by retrieving from trillions of tokens",
    authors="Sebastian Borgeaud, Arthur Mensch",
    abstract="We enhance auto-regressive language models by conditioning on document chunks.",
    categories=("cs.CL",),
    published="2021-12-08",
)
RECORD = Paper(
    id="2112.04426",
    title="Improving Language Models by Retrieving from Trillions of Tokens",
    authors="Sebastian Borgeaud, Arthur Mensch, Jordan Hoffmann",
    abstract="We enhance auto-regressive language models (the record's abstract).",
    categories=("cs.CL", "cs.LG"),
    version="v3",
    updated="2022-02-07",
)


def _write(catalog: Catalog, paper: Paper, source: str, kind: str) -> None:
    chunk = Chunk(f"{paper.id}#{kind}-0@{source}", paper.id, kind, 0, "text", "S", 1, 1, paper)
    pdf = ("sha", 9, "retro", "2") if kind == "fulltext" else None
    with catalog.transaction():
        catalog.replace_unit(paper, source, kind, f"digest-{source}", [chunk], pdf)


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return Catalog(tmp_path / "catalog.sqlite")


def test_fields_from_a_pdf_are_marked_pdf(catalog: Catalog) -> None:
    _write(catalog, FROM_PDF, "pdf", "fulltext")

    row = catalog.paper_row(FROM_PDF.id)

    assert row is not None
    assert row.paper == FROM_PDF
    assert row.field_sources == {
        "title": "pdf", "authors": "pdf", "abstract": "pdf", "published": "pdf",
    }  # fmt: skip


def test_a_record_arriving_later_wins_every_field_it_has(catalog: Catalog) -> None:
    _write(catalog, FROM_PDF, "pdf", "fulltext")

    _write(catalog, RECORD, "metadata", "abstract")

    row = catalog.paper_row(FROM_PDF.id)
    assert row is not None
    assert row.source == "metadata"
    assert (row.paper.title, row.paper.authors, row.paper.abstract) == (
        RECORD.title, RECORD.authors, RECORD.abstract,
    )  # fmt: skip
    assert row.paper.categories == RECORD.categories
    assert row.paper.published == FROM_PDF.published  # the record has none: the PDF's stays
    assert row.field_sources == {
        "title": "record", "authors": "record", "abstract": "record",
        "published": "pdf", "updated": "record",
    }  # fmt: skip
    assert row.has_fulltext


def test_a_pdf_after_a_record_fills_only_the_fields_the_record_lacks(catalog: Catalog) -> None:
    record = Paper(id=RECORD.id, title=RECORD.title, categories=("cs.CL",), version="v1")
    _write(catalog, record, "metadata", "abstract")

    _write(catalog, FROM_PDF, "pdf", "fulltext")

    row = catalog.paper_row(RECORD.id)
    assert row is not None
    assert row.source == "metadata"
    assert row.paper.title == RECORD.title
    assert row.paper.abstract == FROM_PDF.abstract
    assert row.paper.authors == FROM_PDF.authors
    assert row.field_sources["title"] == "record"
    assert row.field_sources["abstract"] == "pdf"


def test_a_newer_pdf_reading_replaces_an_older_one(catalog: Catalog) -> None:
    _write(catalog, FROM_PDF, "pdf", "fulltext")
    better = Paper(id=FROM_PDF.id, title=FROM_PDF.title, authors="Sebastian Borgeaud")

    _write(catalog, better, "pdf", "fulltext")

    row = catalog.paper_row(FROM_PDF.id)
    assert row is not None
    assert row.paper.authors == "Sebastian Borgeaud"
    assert row.paper.abstract == FROM_PDF.abstract  # the newer reading found none: kept


def test_rows_written_before_fields_were_tracked_take_their_records_source(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE papers DROP COLUMN field_sources")
    db.execute(
        "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories,"
        " published, updated, comments, source) VALUES ('1706.03762', 1, 'v7',"
        " 'Attention Is All You Need', '', '', 'cs.CL', '', '', '', 'pdf')"
    )
    db.commit()
    db.close()

    row = Catalog(path).paper_row("1706.03762")

    assert row is not None
    assert row.field_sources == {"title": "pdf"}
