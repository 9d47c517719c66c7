from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.index.catalog import Catalog, CatalogError, PaperRow, PdfRecord
from ingest.index.names import citations
from ingest.index.records import Box, Chunk, Paper
from ingest.index.tables.chunks import ChunkRow
from ingest.private import private_file
from tests.support.worlds.catalogs import as_released

PAPER = Paper(
    id="2112.04426",
    title="Improving language models by retrieving from trillions of tokens",
    categories=("cs.CL",),
    version="v1",
    published="2021-12-08",
)


def _chunk(kind: str, number: int, page: int) -> Chunk:
    chunk_id = f"{PAPER.id}#{kind}-{number}@abc"
    return Chunk(chunk_id, PAPER.id, kind, number, f"text {number}", "2 Method", page, page, PAPER)


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    with catalog.transaction():
        catalog.replace_unit(PAPER, "metadata", "abstract", "d1", [_chunk("abstract", 0, 0)])
    yield catalog
    catalog.close()


def test_opening_an_older_catalog_adds_new_columns_and_keeps_rows(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).close()
    as_released(
        path,
        "ALTER TABLE papers DROP COLUMN pdf_file",
        "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories,"
        " published, updated, comments, source) VALUES"
        " ('1706.03762', 1, 'v7', 'Attention Is All You Need', '', '', 'cs.CL', '', '', '',"
        " 'metadata')",
    )

    catalog = Catalog(path)

    paper = catalog.get_paper("1706.03762")
    assert paper is not None
    assert paper.title == "Attention Is All You Need"
    assert catalog.resolve_id("1706.03762") == "1706.03762"
    assert catalog.resolve_id("attention") is None


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    path.write_bytes(b"not a database at all" * 100)

    with pytest.raises(CatalogError, match="cannot open the catalog"):
        Catalog(path)


def test_chunk_rows_are_typed_and_leave_out_ids_the_catalog_lacks(catalog: Catalog) -> None:
    with catalog.transaction():
        catalog.replace_unit(
            PAPER,
            "metadata",
            "fulltext",
            "d2",
            [_chunk("fulltext", 0, 3), _chunk("fulltext", 1, 4)],
        )
    wanted = [f"{PAPER.id}#fulltext-1@abc", "2999.99999#abstract-0@x"]

    rows = catalog.chunk_rows(wanted)

    assert rows == {
        wanted[0]: ChunkRow(
            id=wanted[0], paper_id=PAPER.id, kind="fulltext", number=1, section="2 Method",
            page_start=4, page_end=4, text="text 1",
        )
    }  # fmt: skip


def test_chunk_papers_name_each_held_chunks_paper_and_leave_out_ids_the_catalog_lacks(
    catalog: Catalog,
) -> None:
    with catalog.transaction():
        catalog.replace_unit(PAPER, "metadata", "fulltext", "d2", [_chunk("fulltext", 0, 3)])
    wanted = [f"{PAPER.id}#fulltext-0@abc", "2999.99999#abstract-0@x"]

    papers = catalog.chunk_papers(wanted)

    assert papers == {wanted[0]: PAPER.id}


def test_chunk_papers_read_the_paper_of_a_chunk_whose_id_does_not_name_it(
    catalog: Catalog,
) -> None:
    chunk = dataclasses.replace(_chunk("fulltext", 0, 3), id="imported-7")
    with catalog.transaction():
        catalog.replace_unit(PAPER, "metadata", "fulltext", "d2", [chunk])

    papers = catalog.chunk_papers(["imported-7"])

    assert papers == {"imported-7": PAPER.id}


def test_a_paper_row_tells_its_source_and_whether_its_full_text_is_indexed(
    catalog: Catalog,
) -> None:
    before = catalog.paper_row(PAPER.id)

    with catalog.transaction():
        catalog.replace_unit(
            PAPER,
            "pdf",
            "fulltext",
            "d2",
            [_chunk("fulltext", 0, 3)],
            ("sha", 9, "paper", "2", "/papers/paper.pdf"),
        )

    after = catalog.paper_row(PAPER.id)
    sources = {"title": "record", "published": "record"}
    assert before == PaperRow(PAPER, "metadata", has_fulltext=False, field_sources=sources)
    assert after == PaperRow(PAPER, "metadata", has_fulltext=True, field_sources=sources)
    assert catalog.paper_row("2999.99999") is None


def test_full_text_unit_holds_captions_tables_and_footnotes_and_replaces_them_together(
    catalog: Catalog,
) -> None:
    first = [_chunk("fulltext", 0, 1), _chunk("caption", 1, 2), _chunk("table", 2, 3)]
    second = [_chunk("fulltext", 0, 1), _chunk("footnote", 1, 4)]
    with catalog.transaction():
        catalog.replace_unit(
            PAPER, "pdf", "fulltext", "f1", first, ("sha", 4, "2112.04426v1", "2", "")
        )

    with catalog.transaction():
        catalog.replace_unit(
            PAPER, "pdf", "fulltext", "f2", second, ("sha", 4, "2112.04426v1", "2", "")
        )

    stored = catalog.unit_chunks(PAPER.id, "fulltext")
    assert [(c.kind, c.page_start) for c in stored] == [("fulltext", 1), ("footnote", 4)]
    assert catalog.chunk_ids(PAPER.id, "abstract") == [f"{PAPER.id}#abstract-0@abc"]
    assert catalog.all_units() == [(PAPER.id, "abstract"), (PAPER.id, "fulltext")]
    stats = catalog.stats()
    assert (stats["fulltext"], stats["footnote"], stats["caption"], stats["chunks"]) == (1, 1, 0, 3)


def test_deleting_a_paper_removes_every_kind_of_its_chunks(catalog: Catalog) -> None:
    chunks = [_chunk("fulltext", 0, 1), _chunk("caption", 1, 2)]
    with catalog.transaction():
        catalog.replace_unit(
            PAPER, "pdf", "fulltext", "f1", chunks, ("sha", 2, "2112.04426v1", "2", "")
        )

    with catalog.transaction():
        removed = catalog.delete_paper(PAPER.id)

    assert removed == 3
    assert catalog.chunk_count() == 0


def test_an_older_catalog_gets_chunk_boxes_and_pdf_paths_and_its_chunks_have_none(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    old = Catalog(path)
    with old.transaction():
        old.replace_unit(
            PAPER,
            "pdf",
            "fulltext",
            "d2",
            [_chunk("fulltext", 0, 3)],
            ("sha", 9, "x", "2", "/p.pdf"),
        )
    old.close()
    as_released(
        path, "ALTER TABLE chunks DROP COLUMN boxes", "ALTER TABLE papers DROP COLUMN pdf_path"
    )

    catalog = Catalog(path)

    chunk_id = f"{PAPER.id}#fulltext-0@abc"
    assert catalog.chunk_boxes(chunk_id) is None
    assert catalog.fulltext_without_boxes([PAPER.id, "2999.99999"]) == {PAPER.id}
    assert catalog.pdf_record(PAPER.id) == PdfRecord("", "sha", 9)


def test_boxes_are_stored_with_their_chunks_and_can_be_added_later(catalog: Catalog) -> None:
    box = Box(3, 0.1, 0.2, 0.5, 0.22)
    boxed = dataclasses.replace(_chunk("fulltext", 0, 3), boxes=(box,))
    unboxed = _chunk("fulltext", 1, 3)

    with catalog.transaction():
        catalog.replace_unit(
            PAPER, "pdf", "fulltext", "d2", [boxed, unboxed], ("sha", 9, "x", "2", "/data/x.pdf")
        )
    before = catalog.fulltext_without_boxes([PAPER.id])
    catalog.set_boxes({unboxed.id: ()})

    assert catalog.chunk_boxes(boxed.id) == (box,)
    assert before == {PAPER.id}
    assert catalog.chunk_boxes(unboxed.id) == ()
    assert catalog.fulltext_without_boxes([PAPER.id]) == set()
    assert catalog.pdf_record(PAPER.id) == PdfRecord("/data/x.pdf", "sha", 9)
    assert catalog.chunk_boxes(f"{PAPER.id}#abstract-0@abc") is None


def test_making_the_file_private_keeps_an_open_connections_wal_from_other_processes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    first = sqlite3.connect(path)
    first.execute("PRAGMA journal_mode = WAL")
    with first:
        first.execute("CREATE TABLE t (x)")
    private_file(path)  # what opening a second catalog connection does first
    second = sqlite3.connect(path)
    second.execute("PRAGMA journal_mode = WAL")
    with first:
        first.execute("INSERT INTO t VALUES (1)")
    query = "SELECT count(*) FROM sqlite_master"
    reader = f"import sqlite3; sqlite3.connect({str(path)!r}).execute({query!r}).fetchall()"

    subprocess.run([sys.executable, "-c", reader], check=True, timeout=60)

    # Had the connection lost its locks, the reader's close would have taken itself for
    # the last connection and deleted the write-ahead log under it.
    assert (tmp_path / "catalog.sqlite-wal").exists()
    assert second.execute("SELECT x FROM t").fetchall() == [(1,)]
    first.close()
    second.close()


def _delete_then_fail(catalog: Catalog, paper_id: str) -> None:
    with catalog.transaction():
        catalog.delete_paper(paper_id)
        raise RuntimeError("refused")


def test_every_write_transaction_raises_the_generation_and_a_failed_one_does_not(
    catalog: Catalog,
) -> None:
    before = catalog.generation()
    with catalog.transaction():
        catalog.replace_unit(Paper(id="2401.00009", title="T"), "metadata", "abstract", "d", [])
    with pytest.raises(RuntimeError, match="refused"):
        _delete_then_fail(catalog, "2401.00009")

    assert catalog.generation() == before + 1
    assert catalog.get_paper("2401.00009") is not None


def test_the_paper_count_follows_writes_made_through_another_connection(
    catalog: Catalog, catalog_location: str
) -> None:
    other = Catalog(catalog_location)  # another process's or node's catalog
    try:
        before = catalog.paper_count()
        with other.transaction():
            other.replace_unit(Paper(id="2401.00010", title="T"), "metadata", "abstract", "d", [])
        added = catalog.paper_count()
        again = catalog.paper_count()
        with other.transaction():
            other.delete_paper("2401.00010")
        deleted = catalog.paper_count()
    finally:
        other.close()

    assert (before, added, again, deleted) == (1, 2, 2, 1)


def test_a_title_is_found_by_its_first_words_until_it_changes(catalog: Catalog) -> None:
    plain = Paper(id="2401.00011", title="Paper Plain: Making Medical Research Papers Clear")
    with catalog.transaction():
        catalog.replace_unit(plain, "metadata", "abstract", "d", [])
    found = citations.opening_with(catalog.db, ["paper plain making", "making medical research"])
    with catalog.transaction():
        renamed = dataclasses.replace(plain, title="Über-Plain Papers, Again")
        catalog.replace_unit(renamed, "metadata", "abstract", "d2", [])
    before = citations.opening_with(catalog.db, ["paper plain making"])
    after = citations.opening_with(catalog.db, ["uber plain papers"])

    assert [paper_id for paper_id, _, _ in found] == ["2401.00011"]
    assert (before, [paper_id for paper_id, _, _ in after]) == ([], ["2401.00011"])
