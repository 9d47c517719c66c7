"""A comparison table as CSV and Markdown: what the JSON holds, read back; safe names."""

from __future__ import annotations

import csv
import io
from typing import Any

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
