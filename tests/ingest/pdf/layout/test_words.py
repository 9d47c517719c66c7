"""Words read as they are typeset: subscripts, small capitals and letter spacing, on the
real pages of the shared papers."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from ingest.index.records import ParsedPdf
from ingest.pdf.layout.words import read_lines
from ingest.pdf.parsing import parse_pdf
from tests.support.data import PDFS

pytestmark = pytest.mark.timeout(60)

ADAM = PDFS / "Adam_ A Method for Stochastic Optimization.pdf"


def _lines(path: Path, page: int) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        textpage = document[page - 1].get_textpage()
        return [line.text for line in read_lines(textpage)]
    finally:
        document.close()


def _body(parsed: ParsedPdf, page: int) -> str:
    return " ".join(b.text for b in parsed.blocks if b.kind == "fulltext" and b.page == page)


def test_a_name_with_a_subscript_in_capitals_reads_as_its_variant() -> None:
    bert = parse_pdf(str(PDFS / "1810.04805v2.pdf"))

    body = _body(bert, 3)

    assert (
        "BERT-base (L=12, H=768, A=12, Total Parameters=110M) and BERT-large (L=24,"
        " H=1024, A=16, Total Parameters=340M)." in body
    )
    assert "BERTBASE" not in body
    assert "BERTLARGE" not in body


def test_an_acronym_set_as_a_subscript_keeps_its_capitals() -> None:
    lines = _lines(PDFS / "2002.08909v1.pdf", 3)

    assert any("join-BERT(x) = [CLS]x[SEP]" in line for line in lines)


def test_a_title_set_in_small_capitals_reads_in_its_own_case() -> None:
    lines = _lines(ADAM, 1)

    assert lines[1] == "Adam: A Method for Stochastic Optimization"


def test_headings_in_small_capitals_keep_the_capitals_they_were_written_with() -> None:
    lines = _lines(PDFS / "2010.11929v2.pdf", 3)

    assert "3.1 Vision Transformer (ViT)" in lines


def test_small_capitals_set_apart_by_a_thin_space_are_one_word() -> None:
    retro = parse_pdf(str(PDFS / "2112.04426v1.pdf"))

    assert "RAG (Lewis et al., 2020) and FiD (Izacard and Grave, 2021) build upon" in _body(
        retro, 9
    )
    assert "F iD" not in " ".join(b.text for b in retro.blocks)


def test_letter_spaced_capitals_are_one_word() -> None:
    lines = _lines(PDFS / "2010.11929v2.pdf", 16)

    assert "D.3 Head Type and CLASS token" in lines


def test_close_italic_words_stay_apart() -> None:
    lines = _lines(ADAM, 12)

    assert any(line.startswith("Lemma 10.2. If a function f") for line in lines)
    assert any(line.startswith("Definition 10.1. A function f") for line in lines)


def test_footnote_marks_are_left_out_of_the_sentences_they_follow() -> None:
    bert = _body(parse_pdf(str(PDFS / "1810.04805v2.pdf")), 3)
    dpr = " ".join(b.text for b in parse_pdf(str(PDFS / "2004.04906v3.pdf")).blocks)

    assert "released in the tensor2tensor library. Because the use" in bert
    assert "heads as A. We primarily report results" in bert
    assert "passages in the end. Each passage" in dpr
    assert "as the basic retrieval units and get M total passages" in dpr


def test_a_power_of_ten_reads_as_a_power_and_a_symbols_index_stays() -> None:
    adam = " ".join(b.text for b in parse_pdf(str(ADAM)).blocks)
    attention = parse_pdf(str(PDFS / "1706.03762v7.pdf"))
    tables = " ".join(e.text for e in attention.blocks if e.kind == "table")

    assert "= 10^\u22128" in adam  # its minus sign set in a taller math font
    assert "\u03b21 = 0.9, \u03b22 = 0.999" in adam
    assert "2.3 \u00b7 10^19" in tables
    assert "1.0 \u00b7 10^20" in tables
    assert "1020" not in tables
