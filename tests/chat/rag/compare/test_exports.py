"""A comparison table as CSV and Markdown: what the JSON holds, read back; safe names."""

from __future__ import annotations

import csv
import io
from typing import Any

import html5lib
import markdown

from chat.rag.compare.exports import as_csv, as_markdown, csv_header, file_name, spreadsheet_safe

ASPECTS = ["datasets", "code availability"]
ROWS: list[dict[str, Any]] = [
    {
        "paper_id": "2004.04906",
        "title": 'Dense Passage Retrieval, "DPR"',
        "cells": {
            "datasets": {"text": "NQ, TriviaQA | WQ\nand TREC.", "citation": "2004.04906#x-1"},
            "code availability": {"text": "not found in the paper", "citation": None},
        },
    },
    {
        "paper_id": "hep-th/9901001",
        "title": "=cmd|' /C calc'!A0",
        "cells": {
            "datasets": {"text": "-1 is no dataset.", "citation": "hep-th/9901001#y-2"},
            "code availability": {"text": "@home", "citation": "[arXiv:hep-th/9901001]"},
        },
    },
]


def test_csv_reads_back_as_the_table_with_formulas_kept_as_text() -> None:
    text = as_csv(ROWS, ASPECTS)

    read = list(csv.reader(io.StringIO(text)))
    assert read[0] == csv_header(ASPECTS)
    for row, line in zip(ROWS, read[1:], strict=True):
        expected = [row["paper_id"], row["title"]]
        for name in ASPECTS:
            cell = row["cells"][name]
            expected += [cell["text"], cell["citation"] or ""]
        assert line == [spreadsheet_safe(value) for value in expected]
    assert read[2][1].startswith("'=")


def test_markdown_reads_back_as_the_table_with_citations_after_the_text() -> None:
    text = as_markdown(ROWS, ASPECTS)

    lines = list(
        csv.reader(io.StringIO(text), delimiter="|", escapechar="\\", quoting=csv.QUOTE_NONE)
    )
    read = [[cell.strip() for cell in line[1:-1]] for line in lines]
    assert read[0] == ["paper", "title", *ASPECTS]
    for row, line in zip(ROWS, read[2:], strict=True):
        expected = [row["paper_id"], " ".join(row["title"].split())]
        for name in ASPECTS:
            cell = row["cells"][name]
            cited = f" `{cell['citation']}`" if cell["citation"] else ""
            expected.append(" ".join(cell["text"].split()) + cited)
        assert line == expected


def test_a_files_name_keeps_only_safe_characters() -> None:
    name = file_name(["hep-th/9901001", '2004.04906"; evil', "a", "b", "c"], "csv")

    assert name == "comparison-hep-th-9901001_2004.04906-evil_a-and-2-more.csv"


HOSTILE_ASPECTS = ['=HYPERLINK("http://127.0.0.1/x","click")', "+1", "\tx", "\rcr", "@SUM(A1)"]
HOSTILE_ROWS: list[dict[str, Any]] = [
    {
        "paper_id": "2401.00101",
        "title": "<!-- a comment that would swallow the table",
        "cells": {
            aspect: {
                "text": f"<script>alert(1)</script> | {n} \\| <b>bold</b> & co",
                "citation": None,
            }
            for n, aspect in enumerate(HOSTILE_ASPECTS)
        },
    },
    {
        "paper_id": "2401.00102",
        "title": "A plain row after it",
        "cells": {a: {"text": "plain", "citation": "2401.00102#c-1"} for a in HOSTILE_ASPECTS},
    },
]


def test_a_csv_header_a_spreadsheet_would_run_is_kept_as_text() -> None:
    text = as_csv(HOSTILE_ROWS, HOSTILE_ASPECTS)

    header = next(csv.reader(io.StringIO(text)))
    assert header[:2] == ["paper_id", "title"]
    assert header[2::2] == [f"'{a}" for a in HOSTILE_ASPECTS]
    assert all(name.startswith("'") for name in header[3::2])


def test_markdown_with_markup_in_its_cells_renders_as_text_in_every_column() -> None:
    text = as_markdown(HOSTILE_ROWS, HOSTILE_ASPECTS)

    html = markdown.markdown(text, extensions=["tables"])
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    rows = tree.findall(".//tr")
    assert len(rows) == 3
    assert [len(row) for row in rows] == [2 + len(HOSTILE_ASPECTS)] * 3
    assert tree.find(".//script") is None
    assert tree.find(".//b") is None
    first = ["".join(cell.itertext()) for cell in rows[1]]
    assert first[1] == "<!-- a comment that would swallow the table"
    assert first[2] == "<script>alert(1)</script> | 0 \\| <b>bold</b> & co"
