"""Page furniture leaves the body; the last line of a page set longer than most stays."""

from __future__ import annotations

import pytest

from ingest.index.records import ParsedPdf
from ingest.pdf.parsing import parse_pdf
from tests.support.data import PDFS

pytestmark = pytest.mark.timeout(60)


def _page_body(parsed: ParsedPdf, page: int) -> str:
    return " ".join(b.text for b in parsed.blocks if b.kind == "fulltext" and b.page == page)


@pytest.fixture(scope="module")
def retro() -> ParsedPdf:
    return parse_pdf(str(PDFS / "2112.04426v1.pdf"))


def test_last_line_of_a_page_below_most_pages_text_stays_in_the_body(retro: ParsedPdf) -> None:
    conclusion = _page_body(retro, 15)

    assert (
        "On Wikitext103 and the Pile, Retro outperforms previous models trained on large"
        " scale datasets. We also show that Retro is competitive on" in conclusion
    )
    assert "outper-retrieval" not in conclusion


def test_word_hyphenated_on_a_page_last_line_is_finished_with_its_own_rest() -> None:
    parsed = parse_pdf(str(PDFS / "1803.02999v3.pdf"))

    assert "Omniglot [11] and Mini-ImageNet [18]." in _page_body(parsed, 8)


def test_last_line_of_a_footnote_stays_with_its_footnote() -> None:
    parsed = parse_pdf(str(PDFS / "2204.02311v1.pdf"))

    notes = [b.text for b in parsed.blocks if b.kind == "footnote" and b.page == 3]
    assert any(
        "such as Zeng et al. (2021) for Chinese." in note
        and note.startswith("1We note that these models")
        for note in notes
    )


def test_conference_footer_under_page_one_stays_out_of_the_body() -> None:
    parsed = parse_pdf(str(PDFS / "1706.03762v7.pdf"))

    assert "31st Conference on Neural Information" not in _page_body(parsed, 1)
    assert "31st Conference on Neural Information" not in " ".join(
        b.text for b in parsed.blocks if b.page == 1
    )
