"""A metadata record wins over page 1 of a PDF field by field, whichever came first."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.chunking import Piece, make_chunks, unit_hash
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Chunk, Paper
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import Indexer, UnitWork
from tests.support.worlds.catalogs import as_released
from tests.support.worlds.vectors import unit_vectors

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
    pdf = ("sha", 9, "retro", "2", "") if kind == "fulltext" else None
    with catalog.transaction():
        catalog.replace_unit(paper, source, kind, f"digest-{source}", [chunk], pdf)


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    yield catalog
    catalog.close()


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
    as_released(
        path,
        "ALTER TABLE papers DROP COLUMN field_sources",
        "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories,"
        " published, updated, comments, source) VALUES ('1706.03762', 1, 'v7',"
        " 'Attention Is All You Need', '', '', 'cs.CL', '', '', '', 'pdf')",
    )

    row = Catalog(path).paper_row("1706.03762")

    assert row is not None
    assert row.field_sources == {"title": "pdf"}


def _unit(paper: Paper, source: str, kind: str, texts: list[str]) -> UnitWork:
    pieces = [Piece(text, "Abstract" if kind == "abstract" else "2 Method", 1, 1) for text in texts]
    digest = unit_hash(paper, kind, pieces)
    chunks = tuple(make_chunks(paper, kind, pieces, digest))
    pdf = ("sha", 9, "retro", "2", "") if kind == "fulltext" else None
    return UnitWork(paper, kind, source, "test", digest, chunks, pdf)


def test_a_later_record_reaches_the_full_text_chunks_in_chroma_and_bm25(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    store = ChunkStore(open_chroma(tmp_path / "chroma"), "m")
    lexical = LexicalIndex(tmp_path / "lexical")
    indexer = Indexer(catalog, store, lexical)
    fulltext = _unit(
        FROM_PDF, "pdf", "fulltext", ["chunked cross-attention", "a retrieval database"]
    )
    indexer.write([fulltext], unit_vectors(2))
    record = dataclasses.replace(
        RECORD, title="Retrieval-Enhanced Transformer", published="2021-12-08"
    )

    indexer.write([_unit(record, "metadata", "abstract", ["RETRO abstract"])], unit_vectors(1))

    got = store.collection.get(ids=[c.id for c in fulltext.chunks], include=["metadatas"])
    metadatas = got["metadatas"] or []
    assert [(m["categories"], m["version"]) for m in metadatas] == [("cs.CL cs.LG", "v3")] * 2
    hits = lexical.search("enhanced transformer")
    assert {chunk_id for chunk_id, _, _ in hits} >= {c.id for c in fulltext.chunks}
    assert catalog.pending_units() == []
