"""Page 1's title, author and affiliation block stays out of the body's chunks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ingest.index.records import Block, Header, ParsedPdf
from ingest.pdf.front.matter import drop_front_matter
from ingest.pdf.parsing import parse_pdf
from tests.support.data import PDFS
from tests.support.worlds.pdf_fixtures import write_laid_out_pdf

_PAGE = [
    ("bold:Reading Papers Without Their Front Matter", 17, 110, 700),
    ("Ada Lovelace", 11, 150, 650),
    ("1", 6, 216, 655),
    (", Alan Turing", 11, 220, 650),
    ("University of Somewhere", 10, 154, 634),
    ("{ada,alan}@example.org", 10, 170, 620),
    ("bold:Abstract", 12, 280, 580),
    ("The abstract says what the paper does in a few sentences of plain", 10, 100, 560),
    ("prose, and the body of the paper follows it under its headings.", 10, 100, 548),
    ("bold:1 Introduction", 12, 72, 500),
    ("Papers that come only as a PDF need their metadata read from the page.", 10, 72, 480),
]


def _body(parsed: ParsedPdf, page: int | None = None) -> str:
    return " ".join(
        b.text for b in parsed.blocks if b.kind == "fulltext" and page in (None, b.page)
    )


def test_title_authors_and_emails_are_not_body_text(tmp_path: Path) -> None:
    parsed = parse_pdf(str(write_laid_out_pdf(tmp_path / "p.pdf", _PAGE, {})))

    body = _body(parsed)
    assert parsed.header.authors == "Ada Lovelace, Alan Turing"
    assert "Lovelace" not in body
    assert "@example.org" not in body
    assert "Somewhere" not in body
    assert "Front Matter" not in body
    assert parsed.blocks[0].section == "Abstract"
    assert parsed.blocks[0].text.startswith("The abstract says what the paper does")
    assert parsed.stats["front_matter_chars_dropped"] > 0


def test_abstract_without_a_heading_stays_as_the_abstract_section() -> None:
    parsed = parse_pdf(str(PDFS / "2112.04426v1.pdf"))

    first = parsed.blocks[0]
    assert first.section == "Abstract"
    assert first.text.startswith("We enhance auto-regressive language models")
    assert "Borgeaud" not in _body(parsed, page=1)
    assert "DeepMind" not in first.text


@pytest.mark.parametrize("name", sorted(path.name for path in PDFS.glob("*.pdf")))
def test_real_first_pages_keep_neither_title_nor_first_author_in_the_body(name: str) -> None:
    parsed = parse_pdf(str(PDFS / name))
    header = parsed.header
    page_one = _body(parsed, page=1)

    assert parsed.blocks[0].section.lower() == "abstract"
    if header.title:
        assert header.title not in page_one
    if header.authors:
        assert header.authors.split(", ")[0] not in page_one


def _block(text: str, section: str = "", page: int = 1) -> Block:
    return Block(section=section, page=page, text=text)


def test_without_an_abstract_nothing_is_taken_from_the_first_page() -> None:
    blocks = [_block("Notes on a method, with no heading at all."), _block("More.", "Results")]
    stats: Counter[str] = Counter()

    assert drop_front_matter(blocks, Header(title="Notes"), stats) == blocks
    assert not stats


def test_front_before_an_abstract_heading_goes_whole() -> None:
    blocks = [_block("A Title Ada Lovelace ada@example.org"), _block("We study.", "Abstract")]
    stats: Counter[str] = Counter()

    assert drop_front_matter(blocks, Header(), stats) == blocks[1:]
    assert stats["front_matter_chars_dropped"] == len(blocks[0].text)


def test_abstract_found_despite_marks_and_ligatures_between_its_words() -> None:
    text = "A Title Ada Lovelace\u2217 Univ. We ﬁnd that the method works on every benchmark tried."
    header = Header(abstract="We find that the method works on every benchmark tried.")

    kept = drop_front_matter([_block(text)], header, Counter())

    assert [b.text for b in kept] == [text[text.index("We ﬁnd") :]]
    assert kept[0].section == "Abstract"


def test_acm_reference_paragraph_goes_and_the_text_after_its_doi_stays() -> None:
    text = (
        "We study it.\n\nACM Reference Format:\n\nAda Lovelace. 2023. A Title. In Proceedings"
        " of CHI. ACM, 15 pages. https://doi.org/10.1145/3544548.3580847 Science builds on."
    )

    kept = drop_front_matter([_block(text, "Abstract")], Header(), Counter())

    assert kept[0].text == "We study it.\n\nScience builds on."
