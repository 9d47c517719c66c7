"""Page-1 metadata of papers that came only as a PDF: title, authors, abstract, date."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from ingest.index.records import Header
from ingest.pdf.front.glyphs import read_lines
from ingest.pdf.front.header import read_header
from ingest.pdf.parsing import parse_pdf
from ingest.sources.units import paper_from_pdf
from tests.support.data import PDFS
from tests.support.worlds.pdf_fixtures import write_laid_out_pdf, write_text_pdf

_ABSTRACT = [
    ("We read the title, the authors and the abstract of a paper from", 10, 100, 550),
    ("its first page, with the size and place of every glyph, and stop", 10, 100, 538),
    ("at the first section of the paper.", 10, 100, 526),
]
_PAGE = [
    ("bold:Learning to Read Papers From Their", 17, 120, 700),
    ("bold:First Pages Alone", 17, 200, 679),
    ("Ada Lovelace", 11, 150, 640),
    ("1,*", 6, 216, 645),
    (", Alan Turing", 11, 226, 640),
    ("2", 6, 296, 645),
    ("1", 6, 150, 628),
    ("University of Somewhere", 10, 154, 624),
    ("{ada,alan}@example.org", 10, 170, 610),
    ("bold:Abstract", 12, 280, 570),
    *_ABSTRACT,
    ("*Equal contribution. Listing order is random.", 7, 100, 90),
    ("bold:1 Introduction", 12, 72, 490),
    ("Papers that come only as a PDF need their metadata read from the page itself.", 10, 72, 470),
]


def _header(path: Path) -> Header:
    return parse_pdf(str(path)).header


@pytest.fixture
def laid_out(tmp_path: Path) -> Path:
    return write_laid_out_pdf(tmp_path / "paper.pdf", _PAGE, {"CreationDate": "D:20200605103000Z"})


def test_title_set_on_two_lines_is_joined_whole(laid_out: Path) -> None:
    header = _header(laid_out)

    assert header.title == "Learning to Read Papers From Their First Pages Alone"


def test_authors_lose_their_raised_marks_emails_and_affiliations(laid_out: Path) -> None:
    header = _header(laid_out)

    assert header.authors == "Ada Lovelace, Alan Turing"


def test_abstract_stops_at_the_first_section_without_the_footnote(laid_out: Path) -> None:
    header = _header(laid_out)

    assert header.abstract == " ".join(text for text, *_ in _ABSTRACT)


def test_without_an_arxiv_stamp_the_date_is_the_pdfs_own(laid_out: Path) -> None:
    header = _header(laid_out)

    assert (header.published, header.updated) == ("2020-06-05", "")


@pytest.mark.parametrize(
    ("stamp", "dates"),
    [
        ("arXiv:2112.04426v1 [cs.CL] 8 Dec 2021", ("2021-12-08", "")),
        ("arXiv:1412.6980v9 [cs.LG] 30 Jan 2017", ("", "2017-01-30")),
        ("arXiv:2112.04426v1 [cs.CL] 31 Feb 2021", ("2019-03-01", "")),
    ],
)
def test_a_first_versions_stamp_dates_the_paper_a_later_ones_its_update(
    stamp: str, dates: tuple[str, str]
) -> None:
    header = read_header([], stamp, ["D:20190301000000"])

    assert (header.published, header.updated) == dates


@pytest.mark.parametrize("value", ["", "D:2019", "D:20191345", "yesterday", "D:00010101"])
def test_a_pdf_date_that_is_no_date_is_left_empty(value: str) -> None:
    assert read_header([], "", [value]) == Header()


def test_a_page_without_a_header_falls_back_to_the_plain_record(tmp_path: Path) -> None:
    lines = ["Some notes about a method, written as plain text without any heading."] * 12
    path = write_text_pdf(tmp_path / "notes.pdf", lines)
    parsed = parse_pdf(str(path))

    paper = paper_from_pdf(path, parsed, "abc", "", is_arxiv=False)

    assert parsed.header == Header()
    assert paper.title == parsed.first_page_title
    assert paper.title.startswith(lines[0])


def test_no_lines_read_give_an_empty_header() -> None:
    assert read_header([], "", []) == Header()


def _real(name: str) -> Header:
    return _header(PDFS / name)


def test_real_title_over_two_lines_is_whole_not_cut_mid_word() -> None:
    header = _real("1502.03167v3.pdf")

    assert header.title == (
        "Batch Normalization: Accelerating Deep Network Training by Reducing Internal"
        " Covariate Shift"
    )


def test_real_title_in_small_capitals_comes_out_in_its_printed_case() -> None:
    assert _real("2010.11929v2.pdf").title.startswith("An Image is Worth 16x16 Words")
    assert _real("Adam_ A Method for Stochastic Optimization.pdf").title == (
        "Adam: A Method for Stochastic Optimization"
    )


def test_real_author_grid_gives_names_only() -> None:
    header = _real("1706.03762v7.pdf")

    assert header.authors.split(", ")[:4] == [
        "Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit",
    ]  # fmt: skip
    assert "@" not in header.authors
    assert "Google" not in header.authors


def test_real_authors_with_numbered_marks_lose_the_numbers() -> None:
    header = _real("2007.01282v2.pdf")

    assert header.authors == "Gautier Izacard, Edouard Grave"


def test_real_abstract_stops_before_the_introduction() -> None:
    header = _real("2007.01282v2.pdf")

    assert header.abstract.startswith("Generative models for open domain question answering")
    assert header.abstract.endswith("aggregate and combine evidence from multiple passages.")


def test_real_abstract_without_a_heading_is_the_paragraph_above_the_first_section() -> None:
    header = _real("2112.04426v1.pdf")

    assert header.abstract.startswith("We enhance auto-regressive language models")
    assert header.abstract.endswith("explicit memory at unprecedented scale.")
    assert header.published == "2021-12-08"


def test_lines_leave_out_the_rotated_stamp() -> None:
    document = pdfium.PdfDocument(PDFS / "2112.04426v1.pdf")
    try:
        lines = read_lines(document)
    finally:
        document.close()

    assert [line.text() for line in lines[:2]] == [
        "Improving language models by retrieving",
        "from trillions of tokens",
    ]
    assert not any("arXiv:2112.04426" in line.text() for line in lines)


def test_real_authors_set_in_capitals_come_out_in_the_case_names_are_written() -> None:
    header = _real("2203.00130v1.pdf")

    # "JONATHAN" opens with a J drawn taller than the capitals after it, "MARTI A." has a
    # small period: neither is small capitals or a mark.
    assert header.authors.split(", ") == [
        "Tal August", "Lucy Lu Wang", "Jonathan Bragg", "Marti A. Hearst", "Andrew Head",
        "Kyle Lo",
    ]  # fmt: skip


def test_a_name_set_in_smaller_raised_type_is_kept_in_the_abstract_not_taken_for_a_mark() -> None:
    # FlashAttention sets its name in small capitals, smaller and higher than the text.
    abstract = _real("2205.14135v2.pdf").abstract

    assert "We propose FlashAttention, an IO-aware exact attention algorithm" in abstract
    assert "We analyze the IO complexity of FlashAttention, showing" in abstract
    assert " , " not in abstract


def test_a_footnote_mark_before_a_comma_leaves_no_space_before_it() -> None:
    abstract = _real("1512.03385v1.pdf").abstract

    assert "ILSVRC & COCO 2015 competitions, where we also won" in abstract
