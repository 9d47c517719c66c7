"""The PDF stage's layout: body text without figure, caption, table or footnote debris.

Small PDFs drawn here show each case alone; pages of the shared papers show
them as real typesetting does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.index.records import Block, ParsedPdf
from ingest.pdf.parsing import parse_pdf
from tests.support.data import PDFS
from tests.support.worlds.pdf_fixtures import box_at, rule_at, text_at, write_layout_pdf

pytestmark = pytest.mark.timeout(60)

_TEXT = (
    "the model reads every passage of the corpus and keeps the words that matter most for "
    "the answer while the rest of the text waits in the index for another question to come "
    "along so that nothing is lost and everything can be found again when it is needed"
)
_WORDS = _TEXT.split(" ")


def _prose(x: float, top: float, count: int, width: int = 12, size: float = 10.0) -> list[bytes]:
    """`count` lines of body text from `top` down, `width` words each; the last ends a sentence."""
    lines = []
    for index in range(count):
        words = [_WORDS[(index * width + i) % len(_WORDS)] for i in range(width)]
        text = " ".join(words) + ("." if index == count - 1 else "")
        lines.append(text_at(x, top - index * 1.2 * size, size, text))
    return lines


def _body(parsed: ParsedPdf) -> str:
    return " ".join(b.text for b in parsed.blocks if b.kind == "fulltext")


def _of_kind(parsed: ParsedPdf, kind: str) -> list[Block]:
    return [b for b in parsed.blocks if b.kind == kind]


def test_caption_between_two_paragraphs_leaves_the_body_and_keeps_its_number(
    tmp_path: Path,
) -> None:
    page = [
        *_prose(72, 700, 8),
        box_at(150, 480, 300, 100),
        text_at(72, 460, 9, "Figure 3: Accuracy of the reader as the number of passages grows."),
        *_prose(72, 420, 8),
    ]
    pdf = write_layout_pdf(tmp_path / "caption.pdf", [page, _prose(72, 700, 10)])

    parsed = parse_pdf(str(pdf))

    captions = _of_kind(parsed, "caption")
    assert [(c.section, c.page) for c in captions] == [("Figure 3", 1)]
    assert captions[0].text.startswith("Figure 3: Accuracy of the reader")
    assert "Accuracy of the reader" not in _body(parsed)


def test_sentence_in_body_text_that_starts_a_line_with_figure_is_no_caption(
    tmp_path: Path,
) -> None:
    page = [
        text_at(72, 700, 10, "the results of the second experiment are shown in"),
        text_at(72, 688, 10, "Figure 2. The reader improves as the number of passages grows."),
        *_prose(72, 676, 8),
    ]
    pdf = write_layout_pdf(tmp_path / "mention.pdf", [page, _prose(72, 700, 10)])

    parsed = parse_pdf(str(pdf))

    assert _of_kind(parsed, "caption") == []
    assert "shown in Figure 2. The reader improves" in _body(parsed)


def test_tick_labels_and_legend_of_a_drawn_chart_are_dropped(tmp_path: Path) -> None:
    axes = [rule_at(145, 470, 360), b"0.5 w 145 470 m 145 600 l S"]
    chart = [*axes, *(box_at(150 + 40 * i, 470, 25, 30 + 20 * i) for i in range(5))]
    ticks = [text_at(150 + 40 * i, 458, 8, f"{10 * (i + 1)}") for i in range(5)]
    page = [
        *_prose(72, 700, 8),
        *chart,
        *ticks,
        text_at(160, 560, 8, "Retrieved passages"),
        text_at(72, 430, 9, "Figure 1: Answers found against passages retrieved."),
        *_prose(72, 400, 6),
    ]
    pdf = write_layout_pdf(tmp_path / "chart.pdf", [page, _prose(72, 700, 10)])

    parsed = parse_pdf(str(pdf))

    body = _body(parsed)
    assert "Retrieved passages" not in body
    assert " 20 30 " not in f" {body} "
    assert parsed.stats["figure_lines_dropped"] >= 2


def test_footnote_at_the_foot_of_the_page_becomes_its_own_chunk(tmp_path: Path) -> None:
    page = [
        *_prose(72, 700, 45),
        rule_at(72, 150, 200),
        text_at(72, 139, 5, "1"),
        text_at(76, 135, 8, "github.com/example/reader holds the code and the data."),
    ]
    pdf = write_layout_pdf(tmp_path / "footnote.pdf", [page, _prose(72, 700, 50)])

    parsed = parse_pdf(str(pdf))

    notes = _of_kind(parsed, "footnote")
    assert [n.page for n in notes] == [1]
    assert "github.com/example/reader" in notes[0].text
    assert "github.com" not in _body(parsed)


def test_two_columns_are_read_left_then_right_whatever_order_the_file_draws_them(
    tmp_path: Path,
) -> None:
    left = [text_at(72, 700 - 12 * i, 10, f"left column line {i} reads first") for i in range(30)]
    right = [
        text_at(320, 700 - 12 * i, 10, f"right column line {i} comes after") for i in range(30)
    ]
    interleaved = [line for pair in zip(right, left, strict=True) for line in pair]
    pdf = write_layout_pdf(tmp_path / "columns.pdf", [interleaved, interleaved])

    parsed = parse_pdf(str(pdf))

    body = _body(parsed)
    assert body.index("left column line 29") < body.index("right column line 0")
    assert "left column line 0 reads first left column line 1 reads first" in body


def test_ruled_table_comes_out_as_rows_of_cells_not_prose(tmp_path: Path) -> None:
    rows = [("Model", "NQ", "TriviaQA"), ("BM25", "59.1", "66.9"), ("Dense", "78.4", "79.4")]
    table = [rule_at(150, 520, 450)]
    for index, row in enumerate(rows):
        y = 505 - 14 * index
        table += [text_at(x, y, 9, cell) for x, cell in zip((160, 300, 380), row, strict=True)]
    table.append(rule_at(150, 462, 450))
    page = [
        *_prose(72, 700, 8),
        text_at(72, 540, 9, "Table 2: Retrieval accuracy on the test sets."),
        *table,
        *_prose(72, 430, 8),
    ]
    pdf = write_layout_pdf(tmp_path / "table.pdf", [page, _prose(72, 700, 10)])

    parsed = parse_pdf(str(pdf))

    tables = _of_kind(parsed, "table")
    assert [t.section for t in tables] == ["Table 2"]
    assert tables[0].text.splitlines() == ["Model | NQ | TriviaQA", "BM25 | 59.1 | 66.9",
                                           "Dense | 78.4 | 79.4"]  # fmt: skip
    assert "59.1" not in _body(parsed)


def test_rotated_page_falls_back_to_plain_text_and_says_so(tmp_path: Path) -> None:
    pdf = write_layout_pdf(tmp_path / "rotated.pdf", [_prose(72, 700, 20)], rotate=90)

    parsed = parse_pdf(str(pdf))

    assert parsed.stats["pages_fallback"] == 1
    assert "the model reads every passage" in _body(parsed)


# Real pages of the shared papers.


@pytest.fixture(scope="module")
def fid() -> ParsedPdf:
    return parse_pdf(str(PDFS / "2007.01282v2.pdf"))


@pytest.fixture(scope="module")
def transformer() -> ParsedPdf:
    return parse_pdf(str(PDFS / "1706.03762v7.pdf"))


def test_word_hyphenated_across_footnotes_and_columns_is_joined_without_them(
    fid: ParsedPdf,
) -> None:
    body = _body(fid)

    assert "the decoder performs attention over the concatenation of the resulting" in body
    assert "lucene.apache.org" not in body
    assert any("lucene.apache.org" in n.text for n in _of_kind(fid, "footnote"))


def test_axis_ticks_of_a_real_chart_stay_out_of_the_body(fid: ParsedPdf) -> None:
    page4 = " ".join(b.text for b in fid.blocks if b.kind == "fulltext" and b.page == 4)

    assert "Number of passages" not in page4
    assert "40 41 42" not in page4
    assert "Following Lee et al. (2019) we use the validation as test" in page4


def test_real_table_keeps_its_rows(fid: ParsedPdf) -> None:
    tables = {t.section: t.text.splitlines() for t in _of_kind(fid, "table")}

    assert "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1 | 56.7 | 63.2" in tables["Table 1"]
    assert "5 | 37.8 | 45.0 | 58.1 | 64.2" in tables["Table 2"]


def test_caption_and_figure_labels_leave_the_sentence_they_interrupted(
    transformer: ParsedPdf,
) -> None:
    body = _body(transformer)
    captions = {c.section: c for c in _of_kind(transformer, "caption")}

    assert "The output is computed as a weighted sum of the values, where the weight" in body
    assert "Multi-Head Attention consists of several" not in body
    assert "Scaled Dot-Product Attention Multi-Head Attention" not in body
    assert captions["Figure 2"].page == 4
    assert captions["Figure 2"].text.startswith("Figure 2: (left) Scaled Dot-Product Attention.")


def test_author_notes_and_margin_stamp_are_not_body_text(transformer: ParsedPdf) -> None:
    body = _body(transformer)

    assert "Equal contribution. Listing order is random" not in body
    assert "arXiv:1706.03762v7" not in body
    assert any("Equal contribution" in n.text for n in _of_kind(transformer, "footnote"))
    assert transformer.stats["pages_fallback"] == 0


def test_caption_set_right_under_the_last_row_of_a_table_is_still_a_caption(
    tmp_path: Path,
) -> None:
    rows = [("Dataset", "Coarse", "Fine"), ("PubMed", "11.8", "7.3"), ("Average", "14.0", "7.8")]
    table = [
        text_at(x, 560 - 11 * index, 8, cell)
        for index, row in enumerate(rows)
        for x, cell in zip((100, 260, 380), row, strict=True)
    ]
    page = [
        *_prose(72, 700, 8),
        *table,
        text_at(72, 527, 9, "Table 3: Spread of the scores across the annotators."),
        *_prose(72, 490, 8),
    ]
    pdf = write_layout_pdf(tmp_path / "under.pdf", [page, _prose(72, 700, 10)])

    parsed = parse_pdf(str(pdf))

    assert [c.section for c in _of_kind(parsed, "caption")] == ["Table 3"]
    assert "Spread of the scores" not in _body(parsed)
    assert "PubMed | 11.8 | 7.3" in _of_kind(parsed, "table")[0].text


def test_fig_and_capital_figure_labels_are_spelled_figure(tmp_path: Path) -> None:
    page = [
        *_prose(72, 700, 8),
        box_at(150, 500, 300, 90),
        text_at(72, 480, 9, "Fig. 4. Recall of the retriever for each corpus."),
        box_at(150, 330, 300, 90),
        text_at(72, 310, 9, "FIGURE 5: Recall of the reader for each corpus."),
        *_prose(72, 280, 6),
    ]
    pdf = write_layout_pdf(tmp_path / "fig.pdf", [page, _prose(72, 700, 10)])

    parsed = parse_pdf(str(pdf))

    assert [c.section for c in _of_kind(parsed, "caption")] == ["Figure 4", "Figure 5"]


def test_a_table_of_names_and_values_is_a_table_not_body_text() -> None:
    # PonderNet's hyperparameters: two cells a line, "Input embedding size | 256".
    parsed = parse_pdf(str(PDFS / "2107.05407v1.pdf"))

    tables = " ".join(b.text for b in _of_kind(parsed, "table") if b.page == 14)

    assert "Input embedding size | 256" in tables
    assert "Attention hidden size | {256, 512}" in tables
    assert "Input embedding size" not in _body(parsed)
    # The page's prose stays body text.
    assert "The mini-batch size was of size 128." in _body(parsed)


def test_a_tables_lines_have_a_cell_a_column_headers_spread_over_their_columns(
    fid: ParsedPdf, transformer: ParsedPdf
) -> None:
    results = next(b.text for b in _of_kind(fid, "table") if b.page == 3).split("\n")
    costs = next(b.text for b in _of_kind(transformer, "table") if b.page == 8).split("\n")

    # "TriviaQA" and "SQuAD Open" are set once over their two columns each.
    assert results[:2] == [
        "Model | NQ | TriviaQA | TriviaQA | SQuAD Open | SQuAD Open",
        "| EM | EM | EM | EM | F1",  # the empty label cell, the line stripped
    ]
    assert "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1 | 56.7 | 63.2" in results
    # Cells the table leaves empty stay in their place: 38.1 is EN-FR's BLEU.
    assert "Transformer (base model) | 27.3 | 38.1 |  | 3.3 \u00b7 10^18" in costs
    assert "ByteNet [18] | 23.75 |  |  |" in costs
