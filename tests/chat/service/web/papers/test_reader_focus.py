"""The words an answer quoted, found inside the passage it cites (`/reader/evidence?quote=`):
a table cell's label and number on the Fusion-in-Decoder PDF, a sentence of its body, a
sentence of an abstract; and what is not found, or not asked, is not marked."""

from __future__ import annotations

import sqlite3
from typing import Any

import pypdfium2 as pdfium
import pytest

from chat.service.web.papers.focus import MAX_QUOTE_CHARS, occurrences, quoted_cells
from tests.support.data import PDFS
from tests.support.running.server import Api
from tests.support.worlds.reader import FID_PDF, first_abstract_id, reader_index, reader_web

__all__ = ["reader_index", "reader_web"]

pytestmark = pytest.mark.timeout(300)

LARGE_ROW = "Fusion-in-Decoder (large)"


def _chunk(api: Api, paper_id: str, kind: str, holding: str) -> sqlite3.Row:
    db = sqlite3.connect(api.services.settings.catalog_path)
    db.row_factory = sqlite3.Row
    rows = db.execute(
        "SELECT * FROM chunks WHERE paper_id = ? AND kind = ? ORDER BY number", (paper_id, kind)
    ).fetchall()
    db.close()
    found: sqlite3.Row = next(row for row in rows if holding in row["text"])
    return found


def _evidence(api: Api, chunk: str, quote: str | None) -> dict[str, Any]:
    params = {"chunk": chunk} if quote is None else {"chunk": chunk, "quote": quote}
    with api.client() as client:
        response = client.get("/reader/evidence", params=params)
    assert response.status_code == 200, response.text
    found = response.json()
    assert isinstance(found, dict)
    return found


def _printed(box: dict[str, float]) -> str:
    """The text the PDF prints inside a box (fractions of the page from its top left)."""
    document = pdfium.PdfDocument(PDFS / f"{FID_PDF}v2.pdf")
    try:
        page = document[int(box["page"]) - 1]
        width, height = page.get_size()
        text = page.get_textpage()
        inside = text.get_text_bounded(
            left=box["x0"] * width,
            bottom=height - box["y1"] * height,
            right=box["x1"] * width,
            top=height - box["y0"] * height,
        )
        text.close()
        page.close()
    finally:
        document.close()
    return " ".join(str(inside).split())


def test_a_quoted_table_cell_marks_its_row_label_and_its_number_alone(
    reader_web: Api,
) -> None:
    chunk = _chunk(reader_web, FID_PDF, "table", LARGE_ROW)
    quote = f"Table 1: {LARGE_ROW} · TriviaQA EM · 67.6"

    found = _evidence(reader_web, chunk["id"], quote)

    assert [_printed(box) for box in found["focus"]] == [LARGE_ROW, "67.6"]
    label, value = found["focus"]
    assert value["x0"] > label["x1"]
    assert abs((value["y0"] + value["y1"]) - (label["y0"] + label["y1"])) < 0.01


def test_tied_cells_are_each_marked_in_their_own_rows(reader_web: Api) -> None:
    chunk = _chunk(reader_web, FID_PDF, "table", LARGE_ROW)
    quote = (
        f"Table 1: Fusion-in-Decoder (base) · TriviaQA EM · 65.0; {LARGE_ROW} · TriviaQA EM · 67.6"
    )

    found = _evidence(reader_web, chunk["id"], quote)

    printed = [_printed(box) for box in found["focus"]]
    assert printed == ["Fusion-in-Decoder (base)", "65.0", LARGE_ROW, "67.6"]


def test_a_quoted_sentence_is_marked_inside_its_passage_and_nothing_else(
    reader_web: Api,
) -> None:
    chunk = _chunk(reader_web, FID_PDF, "fulltext", "concatenation")
    sentence = next(s for s in chunk["text"].split(". ") if "concatenation" in s)

    found = _evidence(reader_web, chunk["id"], sentence)

    marked = " ".join(_printed(box) for box in found["focus"])
    assert "concatenation" in marked
    assert len(marked) < len(sentence) * 1.6
    whole = " ".join(_printed(box) for box in found["boxes"])
    assert len(whole) > 2 * len(marked)


def test_words_not_in_the_passage_mark_nothing_and_no_quote_asks_for_nothing(
    reader_web: Api,
) -> None:
    chunk = _chunk(reader_web, FID_PDF, "table", LARGE_ROW)

    missing = _evidence(reader_web, chunk["id"], "Quantum chromodynamics on the lattice")
    unasked = _evidence(reader_web, chunk["id"], None)

    assert missing["focus"] == []
    assert missing["boxes"] == unasked["boxes"]
    assert unasked["focus"] is None


def test_a_quote_in_an_abstract_marks_those_words_within_the_passage(reader_web: Api) -> None:
    paper_id = first_abstract_id()
    chunk = _chunk(reader_web, paper_id, "abstract", "")
    words = chunk["text"].split()
    sentence = " ".join(words[len(words) // 2 : len(words) // 2 + 12])

    found = _evidence(reader_web, chunk["id"], sentence)

    [(paragraph, start, end)] = found["focus_abstract"]
    assert any(p == paragraph and s <= start and end <= e for p, s, e in found["abstract"])
    assert 0.5 * len(sentence) < end - start < 1.5 * len(sentence)


def test_an_overlong_quote_is_refused(reader_web: Api) -> None:
    chunk = _chunk(reader_web, FID_PDF, "table", LARGE_ROW)

    with reader_web.client() as client:
        response = client.get(
            "/reader/evidence", params={"chunk": chunk["id"], "quote": "x" * (MAX_QUOTE_CHARS + 1)}
        )

    assert response.status_code == 422


def test_quoted_cells_are_read_from_the_answers_form_and_numbers_are_whole() -> None:
    cells = quoted_cells("Table 2 (Model | NQ): RAG-Seq. · NQ · 44.5; DPR · NQ · 41.5")

    assert [(c.label, c.column, c.value) for c in cells] == [
        ("RAG-Seq.", "NQ", "44.5"),
        ("DPR", "NQ", "41.5"),
    ]
    assert quoted_cells("The model reaches 44.5 on NQ.") == []
    text = "167.65 and 67.6, then 67.61 and x67.6"
    assert [text[s : s + n] for s, n in occurrences("67.6", text)] == ["67.6"]
