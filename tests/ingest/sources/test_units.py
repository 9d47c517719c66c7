"""A PDF becomes a paper's full text only when its page 1 prints that paper's title."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper, ParsedPdf
from ingest.index.writer import UnitWork
from ingest.pdf.parsing import parse_pdf
from ingest.report import Skipped
from ingest.sources.units import fulltext_work, prints_title
from tests.support.data import PDFS, ROOT

# Page-1 titles of every shared PDF, read by eye from the rendered pages.
_READ_BY_EYE = json.loads((ROOT / "bench" / "data" / "pdf_metadata.json").read_text("utf-8"))
TITLES: dict[str, str] = {name: page["title"] for name, page in _READ_BY_EYE["papers"].items()}
# Not on arXiv, so no stamp on page 1: only its file name can claim an id.
UNSTAMPED = "2020.acl-main.447.pdf"


def _first_page(path: Path) -> str:
    """Page 1's text as the parser reads it (`ParsedPdf.first_page_text`), without reading the
    other pages."""
    document = pdfium.PdfDocument(path)
    try:
        page = document[0]
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_range())
        finally:
            textpage.close()
            page.close()
    finally:
        document.close()


def _index_record(catalog: Catalog, paper: Paper) -> None:
    chunk = Chunk(f"{paper.id}#abstract-0@m", paper.id, "abstract", 0, "text", "", 1, 1, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", "digest", [chunk])


@pytest.fixture(scope="module")
def unstamped() -> ParsedPdf:
    return parse_pdf(str(PDFS / UNSTAMPED))


def test_every_real_pdf_prints_the_title_of_the_paper_it_is() -> None:
    pdfs = sorted(PDFS.glob("*.pdf"))

    refused = [p.name for p in pdfs if not prints_title(TITLES[p.name], _first_page(p))]

    assert len(pdfs) == len(TITLES) == 38
    assert refused == []


@pytest.mark.parametrize("name", ["2004.04906v3.pdf", "hep-th_9901001v2.pdf"])
def test_a_real_pdf_named_for_another_indexed_paper_is_refused(
    name: str, unstamped: ParsedPdf, tmp_path: Path, count_tokens: Callable[[str], int]
) -> None:
    path = tmp_path / name
    shutil.copy(PDFS / UNSTAMPED, path)
    catalog = Catalog(tmp_path / "catalog.sqlite")
    claimed = name.removesuffix(".pdf")[:-2].replace("_", "/")
    title = "Dense Passage Retrieval for Open-Domain Question Answering"
    _index_record(catalog, Paper(id=claimed, title=title))

    work = fulltext_work(path, unstamped, count_tokens, catalog)

    assert work == Skipped(
        str(path), f"the file name says {claimed}, but page 1 does not print its title ({title!r})"
    )
    assert catalog.chunk_ids(claimed, "fulltext") == []


def test_a_pdf_under_its_own_id_joins_its_record_written_in_tex(
    unstamped: ParsedPdf, tmp_path: Path, count_tokens: Callable[[str], int]
) -> None:
    path = tmp_path / "1911.02782v3.pdf"
    shutil.copy(PDFS / UNSTAMPED, path)
    catalog = Catalog(tmp_path / "catalog.sqlite")
    title = "{S2ORC}: The {S}emantic {S}cholar Open Research\n  Corpus"
    _index_record(catalog, Paper(id="1911.02782", title=title))

    work = fulltext_work(path, unstamped, count_tokens, catalog)

    assert isinstance(work, UnitWork)
    assert (work.paper.id, work.paper.title) == ("1911.02782", title)
    assert len(work.chunks) > 10


def test_a_page_printing_only_part_of_a_long_title_does_not_print_it() -> None:
    title = "Dense Passage Retrieval for Open-Domain Question Answering"

    assert not prints_title(title, "Dense Passage")
    assert prints_title(title, "DENSE PASSAGE RE-\nTRIEVAL FOR OPEN DOMAIN QUESTION ANSWERING")
