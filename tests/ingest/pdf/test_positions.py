"""Chunks found on their PDF pages: the boxes cover the chunk's own text, whatever the body
stage did to it on the way (hyphens, ligatures, white space, dropped debris)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest

from ingest.chunking import Piece, fulltext_pieces, make_chunks
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Box, Paper
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import Indexer, UnitWork
from ingest.pdf.alignment import MIN_COVERAGE, find_text
from ingest.pdf.parsing import parse_pdf
from ingest.pdf.positions import PdfText, locate_chunks, merge_lines
from ingest.pipeline import Pipeline, with_positions
from ingest.progress import NoProgress
from ingest.report import IngestReport
from ingest.sources.units import pdf_items
from tests.support.data import PDFS
from tests.support.worlds.vectors import unit_vectors

pytestmark = pytest.mark.timeout(120)

SHORT = PDFS / "2304.02623v1.pdf"  # 4 pages
TWO_COLUMNS = PDFS / "1512.03385v1.pdf"  # ResNet


@pytest.fixture(scope="module")
def short_pieces(count_tokens: Callable[[str], int]) -> list[Piece]:
    return fulltext_pieces(parse_pdf(str(SHORT)).blocks, count_tokens)


@pytest.fixture(scope="module")
def short_text() -> Iterator[PdfText]:
    document = pdfium.PdfDocument(SHORT)
    yield PdfText(document)
    document.close()


def _text_under(document: pdfium.PdfDocument, box: Box) -> str:
    """The page's text inside a box (pdfium's own bounded text, in page points)."""
    page = document[box.page - 1]
    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        # A hair of margin: the box is the characters' own extent.
        return str(
            textpage.get_text_bounded(
                left=box.x0 * width - 0.5,
                bottom=(1 - box.y1) * height - 0.5,
                right=box.x1 * width + 0.5,
                top=(1 - box.y0) * height + 0.5,
            )
        )
    finally:
        textpage.close()
        page.close()


def test_every_chunk_of_a_real_pdf_is_found_on_its_pages(
    short_pieces: list[Piece], short_text: PdfText
) -> None:
    found = [short_text.locate(p.text, p.page_start, p.page_end) for p in short_pieces]

    assert len(found) > 10
    assert all(f.boxes for f in found)
    assert sorted(f.coverage for f in found)[len(found) // 10] > 0.95
    for piece, result in zip(short_pieces, found, strict=True):
        assert {b.page for b in result.boxes} <= set(range(piece.page_start, piece.page_end + 2))
        for box in result.boxes:
            assert 0 <= box.x0 < box.x1 <= 1
            assert 0 <= box.y0 < box.y1 <= 1


def test_a_chunks_boxes_cover_its_text_and_little_else(
    short_pieces: list[Piece], short_text: PdfText
) -> None:
    piece = max(short_pieces, key=lambda p: len(p.text))

    result = short_text.locate(piece.text, piece.page_start, piece.page_end)

    under = " ".join(_text_under(short_text.document, box) for box in result.boxes)
    _, inside = find_text(piece.text, under)
    _, outside = find_text(under, piece.text)
    assert inside > 0.95
    assert outside > 0.8


def test_boxes_are_merged_into_one_per_line(short_pieces: list[Piece], short_text: PdfText) -> None:
    piece = max(short_pieces, key=lambda p: len(p.text))

    boxes = short_text.locate(piece.text, piece.page_start, piece.page_end).boxes

    words = len(piece.text.split())
    assert len(boxes) < words / 4
    tops = [round(b.y0, 3) for b in boxes if b.page == boxes[0].page]
    assert len(tops) == len(set(tops))


def test_two_column_pages_are_found_too(count_tokens: Callable[[str], int]) -> None:
    pieces = fulltext_pieces(parse_pdf(str(TWO_COLUMNS)).blocks, count_tokens)[:20]
    items = (str(TWO_COLUMNS), [(p.text, p.page_start, p.page_end) for p in pieces])

    found = locate_chunks(items)

    assert len(found) == len(pieces)
    assert sum(f.coverage > 0.9 for f in found) >= 18
    # Each column's lines stay apart: no box spans most of the page's width on a body page.
    body = [b for f in found for b in f.boxes if b.page > 1]
    assert body
    assert all(b.x1 - b.x0 < 0.6 for b in body)


def test_text_from_elsewhere_has_no_boxes(short_text: PdfText) -> None:
    alien = (
        "Gradient boosted decision trees fitted on tabular census records predict household "
        "income with calibrated quantile losses and monotone constraints on every feature."
    )

    result = short_text.locate(alien, 1, 4)

    assert result.boxes == ()
    assert result.coverage < MIN_COVERAGE


@pytest.mark.parametrize("page", [0, -3])
def test_a_chunk_without_a_page_is_not_looked_for(short_text: PdfText, page: int) -> None:
    assert (
        short_text.locate("any text at all, long enough to be looked for", page, page).boxes == ()
    )


def test_pages_past_the_end_are_ignored(short_pieces: list[Piece], short_text: PdfText) -> None:
    last = short_pieces[-1]

    result = short_text.locate(last.text, last.page_start, last.page_end + 50)

    assert result.boxes
    assert max(b.page for b in result.boxes) <= 4


def test_rectangles_of_one_line_are_merged_and_lines_kept_apart() -> None:
    line = [(0.10, 0.20, 0.30, 0.22), (0.31, 0.201, 0.50, 0.221)]
    next_line = [(0.10, 0.23, 0.40, 0.25)]
    other_column = [(0.55, 0.20, 0.90, 0.22)]

    merged = merge_lines([*line, *next_line, *other_column])

    assert merged == [
        (0.10, 0.20, 0.50, 0.221),
        (0.55, 0.20, 0.90, 0.22),
        (0.10, 0.23, 0.40, 0.25),
    ]


def _work(pieces: list[Piece], path: str) -> UnitWork:
    paper = Paper(id="2304.02623", title="A short paper")
    chunks = make_chunks(paper, "fulltext", pieces, "d" * 64)
    return UnitWork(
        paper, "fulltext", "pdf", path, "d" * 64, tuple(chunks), ("s", 4, "x", "2", path)
    )


def test_ingest_records_boxes_for_each_chunk_from_a_worker(short_pieces: list[Piece]) -> None:
    work = _work(short_pieces[:3], str(SHORT))

    [located] = with_positions([work])

    assert [c.text for c in located.chunks] == [c.text for c in work.chunks]
    assert all(c.boxes for c in located.chunks)
    assert all(c.boxes is None for c in work.chunks)


def test_a_pdf_gone_since_parsing_keeps_its_chunks_without_boxes(
    short_pieces: list[Piece], tmp_path: Path
) -> None:
    work = _work(short_pieces[:2], str(tmp_path / "moved.pdf"))

    [located] = with_positions([work])

    assert located.chunks == work.chunks
    assert all(c.boxes is None for c in located.chunks)


def test_a_run_over_an_older_index_adds_positions_and_paths_without_embedding(
    tmp_path: Path, count_tokens: Callable[[str], int]
) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    store = ChunkStore(open_chroma(tmp_path / "chroma"), "m")
    indexer = Indexer(catalog, store, LexicalIndex(tmp_path / "lexical"))
    embedded: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.append(len(texts))
        return unit_vectors(len(texts))

    pipeline = Pipeline(catalog, indexer, embed, NoProgress())
    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(SHORT, folder / SHORT.name)
    pipeline.run(pdf_items([folder], catalog, count_tokens), IngestReport())
    ids = catalog.chunk_ids("2304.02623", "fulltext")
    assert ids
    assert all(catalog.chunk_boxes(i) for i in ids)
    with catalog.transaction() as db:
        db.execute("UPDATE chunks SET boxes = NULL")
        db.execute("UPDATE papers SET pdf_path = NULL")
    moved = folder.rename(tmp_path / "moved")

    report = pipeline.run(pdf_items([moved], catalog, count_tokens), IngestReport())

    assert (report.chunks_added, report.unchanged_papers, len(embedded)) == (0, 1, 1)
    assert all(catalog.chunk_boxes(i) for i in ids)
    record = catalog.pdf_record("2304.02623")
    assert record is not None
    assert record.path == str((moved / SHORT.name).resolve())
