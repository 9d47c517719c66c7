from __future__ import annotations

import re

import pytest

from ingest.index.records import Block, ParsedPdf
from ingest.pdf.parsing import parse_pdf
from ingest.pdf.text.cleaning import clean_pages
from ingest.pdf.text.wordrepair import SOFT_HYPHEN
from tests.support.data import PDFS

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def transformer() -> ParsedPdf:
    return parse_pdf(str(PDFS / "1706.03762v7.pdf"))


@pytest.fixture(scope="module")
def adam() -> ParsedPdf:
    return parse_pdf(str(PDFS / "Adam_ A Method for Stochastic Optimization.pdf"))


@pytest.fixture(scope="module")
def bert() -> ParsedPdf:
    return parse_pdf(str(PDFS / "1810.04805v2.pdf"))


def _sections(blocks: tuple[Block, ...] | list[Block]) -> list[str]:
    seen: list[str] = []
    for block in blocks:
        if not seen or seen[-1] != block.section:
            seen.append(block.section)
    return seen


def _text(parsed: ParsedPdf) -> str:
    return "\n".join(block.text for block in parsed.blocks)


def test_numbered_headings_become_sections_in_reading_order(transformer: ParsedPdf) -> None:
    sections = _sections(transformer.blocks)

    expected = [
        "Abstract",
        "1 Introduction",
        "2 Background",
        "3 Model Architecture",
        "3.2.1 Scaled Dot-Product Attention",
        "4 Why Self-Attention",
        "7 Conclusion",
        "References",
    ]
    assert [section for section in sections if section in expected] == expected


def test_only_blocks_after_references_heading_are_references(transformer: ParsedPdf) -> None:
    flags = [(block.section, block.is_references) for block in transformer.blocks]

    assert all(is_ref == (section == "References") for section, is_ref in flags)
    assert [block.page for block in transformer.blocks if block.is_references][:3] == [10, 11, 12]


def test_appendix_after_references_is_content_again(bert: ParsedPdf) -> None:
    appendix = [block for block in bert.blocks if block.section.startswith("A.1 ")]

    assert appendix
    assert not any(block.is_references for block in appendix)
    assert any(block.is_references for block in bert.blocks)


def test_headings_set_in_small_capitals_are_found_in_their_own_case(adam: ParsedPdf) -> None:
    sections = _sections(adam.blocks)

    assert sections[:3] == ["Abstract", "1 Introduction", "2 Algorithm"]
    assert "2.1 Adam\u2019s update rule" in sections
    assert "References" in sections


def test_block_pages_follow_the_pdf_pages(transformer: ParsedPdf) -> None:
    scaled = [b for b in transformer.blocks if b.section == "3.2.1 Scaled Dot-Product Attention"]

    assert [block.page for block in scaled] == [4]
    assert "We call our particular attention" in scaled[0].text


def test_no_soft_hyphen_marks_are_left(transformer: ParsedPdf, adam: ParsedPdf) -> None:
    text = _text(transformer) + _text(adam)

    assert SOFT_HYPHEN not in text


def test_words_broken_across_lines_are_joined(adam: ParsedPdf) -> None:
    text = _text(adam)

    assert "adaptive estimates of lower-order moments." in text
    assert "intuitive interpretations" in text
    assert adam.stats["words_soft_hyphen_joined"] > 10


def test_compounds_broken_at_their_hyphen_keep_it(transformer: ParsedPdf) -> None:
    text = _text(transformer)

    assert "English-to-German translation task" in text
    assert "English-to-French translation task" in text


def test_running_header_is_dropped_from_every_page(adam: ParsedPdf) -> None:
    text = _text(adam)

    assert "Published as a conference paper" not in text
    # One running head a page, and a few chart labels that sit in the page's top band.
    assert adam.stats["header_footer_lines_dropped"] >= adam.page_count


def test_page_numbers_are_dropped(transformer: ParsedPdf) -> None:
    bare_numbers = [
        (block.page, paragraph)
        for block in transformer.blocks
        for paragraph in block.text.split("\n\n")
        if re.fullmatch(r"\d{1,2}", paragraph.split()[-1]) and len(paragraph.split()) == 1
    ]

    assert bare_numbers == []
    assert transformer.stats["page_number_lines_dropped"] == 14


def test_arxiv_stamp_is_dropped_from_the_text(transformer: ParsedPdf) -> None:
    assert "arXiv:1706.03762v7" not in _text(transformer)
    # Printed sideways in the margin: dropped by the layout with the other sideways text.
    assert transformer.stats["sideways_lines_dropped"] >= 1


def test_text_before_the_first_heading_is_front_matter_and_leaves_the_body(
    transformer: ParsedPdf,
) -> None:
    first = transformer.blocks[0]
    page_one = " ".join(b.text for b in transformer.blocks if b.page == 1 and b.kind == "fulltext")

    assert (first.section, first.page) == ("Abstract", 1)
    assert "Attention Is All You Need" not in page_one
    assert "avaswani@google.com" not in page_one


def test_references_end_at_a_lettered_appendix() -> None:
    page = "\n".join(
        ["1 Introduction", "Text.", "References", "A. Author. A paper. 2020.", "A Proofs", "Proof."]
    )

    blocks, _ = clean_pages([page])

    assert [(b.section, b.is_references) for b in blocks] == [
        ("1 Introduction", False),
        ("References", True),
        ("A Proofs", False),
    ]


def test_section_spanning_pages_gives_one_block_per_page() -> None:
    pages = ["1 Introduction\nFirst page text goes on", "and ends on the second page.\n2 Next"]

    blocks, _ = clean_pages(pages)

    assert [(b.section, b.page) for b in blocks] == [("1 Introduction", 1), ("1 Introduction", 2)]
    assert blocks[1].text == "and ends on the second page."


def test_ligatures_are_normalised_and_restored() -> None:
    page = "Abstract\nThe \ufb01rst de\ue00cned su\ue00exes are e cient and di erent."

    blocks, stats = clean_pages([page])

    assert blocks[0].text == "The first defined suffixes are efficient and different."
    assert stats["chars_nfkc_normalised"] == 1
    assert stats["words_ligature_glyph_restored"] == 2
    assert stats["words_ligature_gap_restored"] == 2


def test_soft_hyphen_between_two_known_words_is_kept_and_inside_a_word_is_dropped() -> None:
    page = "Abstract\nA batch of normalizing steps: batch\ufffenormalizing a con\ufffevergence."

    blocks, stats = clean_pages([page])

    assert blocks[0].text == "A batch of normalizing steps: batch-normalizing a convergence."
    assert (stats["words_soft_hyphen_joined"], stats["soft_hyphen_compounds_kept"]) == (1, 1)


def test_ordinary_line_end_hyphen_is_joined_when_the_document_knows_the_word() -> None:
    page = (
        "Abstract\nWe study representation learning with a repre-\nsentation of text. A meta-\n"
        "learning rule and meta-learning again."
    )

    blocks, stats = clean_pages([page])

    assert "a representation of text" in blocks[0].text
    assert "A meta-learning rule" in blocks[0].text
    assert (stats["words_hyphen_joined"], stats["hyphen_compounds_kept"]) == (1, 1)
