"""The reader's renderer: only the catalog's recorded, unchanged PDF; bounded sizes, cache and
queue."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import threading
from pathlib import Path

import pytest

from chat.service.web.papers.pdfpages import (
    MAX_PIXELS,
    WIDTHS,
    PageOutOfRange,
    PdfPages,
    PdfUnavailable,
    ReaderBusy,
    _Bytes,
    render_width,
)
from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper
from ingest.pdf.positions import PAIR_FILLER, one_per_index
from tests.support.data import PDFS

pytestmark = pytest.mark.timeout(120)

PAPER = Paper(id="2304.02623", title="A short paper")
SOURCE = PDFS / "2304.02623v1.pdf"


def _catalog(tmp_path: Path, pdf: Path | None, sha256: str | None = None) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    digest = sha256 or (hashlib.sha256(pdf.read_bytes()).hexdigest() if pdf else "")
    chunk = Chunk(f"{PAPER.id}#fulltext-0@x", PAPER.id, "fulltext", 0, "t", "1", 1, 1, PAPER)
    with catalog.transaction():
        record = (digest, 4, "x", "2", str(pdf) if pdf else "")
        catalog.replace_unit(PAPER, "pdf", "fulltext", "d", [chunk], record)
    return catalog


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    target = tmp_path / "paper.pdf"
    shutil.copy(SOURCE, target)
    return target


def test_the_recorded_pdf_is_shown_page_by_page(tmp_path: Path, copied: Path) -> None:
    catalog = _catalog(tmp_path, copied)
    pages = PdfPages(lambda: catalog)

    info = pages.info(PAPER.id)
    image, version = pages.image(PAPER.id, 2, 500)

    assert info.pages == 4
    assert all(1.2 < ratio < 1.5 for ratio in info.ratios)
    assert version == info.version
    assert image[8:12] == b"WEBP"
    with pytest.raises(PageOutOfRange):
        pages.image(PAPER.id, 5, 500)
    pages.close()


def test_a_pdf_replaced_since_ingest_is_not_shown(tmp_path: Path, copied: Path) -> None:
    catalog = _catalog(tmp_path, copied)
    pages = PdfPages(lambda: catalog)
    pages.info(PAPER.id)

    shutil.copy(PDFS / "2007.01282v2.pdf", copied)

    with pytest.raises(PdfUnavailable, match="changed since it was indexed"):
        pages.image(PAPER.id, 1, 500)


def test_a_pdf_moved_away_is_not_shown(tmp_path: Path, copied: Path) -> None:
    catalog = _catalog(tmp_path, copied)
    copied.unlink()

    with pytest.raises(PdfUnavailable, match="no longer on this server"):
        PdfPages(lambda: catalog).info(PAPER.id)


def test_an_index_without_recorded_paths_shows_no_pdf(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path, None, sha256="ab" * 32)

    with pytest.raises(PdfUnavailable, match="no PDF"):
        PdfPages(lambda: catalog).info(PAPER.id)


def test_widths_are_rounded_up_to_a_few_and_capped() -> None:
    assert render_width(1) == WIDTHS[0]
    assert render_width(WIDTHS[2]) == WIDTHS[2]
    assert render_width(WIDTHS[2] + 1) == WIDTHS[3]
    assert render_width(10**6) == WIDTHS[-1]
    assert WIDTHS[-1] ** 2 < MAX_PIXELS * 2


def test_the_image_cache_holds_at_most_its_bytes_newest_first() -> None:
    cache = _Bytes(limit=10)

    cache.keep(("a",), b"12345")
    cache.keep(("b",), b"12345")
    assert cache.get_fresh(("a",)) == b"12345"
    cache.keep(("c",), b"123")
    cache.keep(("huge",), b"x" * 11)

    assert list(cache) == [("a",), ("c",)]
    assert cache.held <= 10
    assert cache.get_fresh(("huge",)) is None


def test_requests_beyond_the_queue_are_told_the_reader_is_busy(
    tmp_path: Path, copied: Path
) -> None:
    catalog = _catalog(tmp_path, copied)
    pages = PdfPages(lambda: catalog)
    pages._waiting = threading.BoundedSemaphore(1)
    assert pages._waiting.acquire(blocking=False)

    with pytest.raises(ReaderBusy, match="too many page requests"):
        pages.image(PAPER.id, 1, 500)


def test_every_page_of_every_real_pdf_has_a_text_layer_that_can_be_sent(tmp_path: Path) -> None:
    # Math set in letters beyond U+FFFF (RETRO page 1, FlashAttention page 2) once reached
    # the layer as lone UTF-16 halves, which no JSON encoder can write: a 500 for the page.
    walked: dict[str, int] = {}
    unsendable: list[str] = []
    for number, pdf in enumerate(sorted(PDFS.glob("*.pdf"))):
        folder = tmp_path / str(number)
        folder.mkdir()
        pages = PdfPages(functools.partial(_catalog, folder, pdf))
        count = pages.info(PAPER.id).pages
        lines = 0
        for page in range(1, count + 1):
            layer = pages.text_layer(PAPER.id, page)
            lines += len(layer["lines"])
            try:
                json.dumps(layer, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                unsendable.append(f"{pdf.name} page {page}")
        walked[pdf.name] = lines
        pages.close()

    assert len(walked) == 38
    assert unsendable == []
    assert all(lines > 0 for lines in walked.values()), walked


def test_characters_beyond_the_basic_plane_keep_one_place_per_index() -> None:
    italic_x = [0xD835, 0xDC65]  # U+1D465 MATHEMATICAL ITALIC SMALL X, as PDFium gives it

    text = one_per_index([ord("a"), *italic_x, ord("b"), 0xD835, ord("c"), 0, 0xDC65])

    assert text == "a\U0001d465" + PAIR_FILLER + "b\ufffdc\ufffd\ufffd"
    assert len(text) == 8
    assert text.encode("utf-8")
