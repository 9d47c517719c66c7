"""A comparison table as a file: CSV for spreadsheets, Markdown for notes.

Both hold a row per paper (its id and title) and, for each aspect, the cell's
text and its citation. The CSV gives the citation a column of its own
("<aspect> citation"); Markdown writes it after the text in backticks. A CSV
cell or header that a spreadsheet would read as a formula (=, +, -, @, a tab or a carriage
return first) is kept as text by a leading apostrophe (`spreadsheet_safe`). A Markdown cell
is one line, with `|` and `\\` escaped and `<`, `>` and `&` written as entities, so that no
record's markup is read as HTML and every row has the header's columns.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
MARKDOWN_MEDIA_TYPE = "text/markdown; charset=utf-8"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_NAMED_PAPERS = 3  # papers a file's name names; more are counted
_MAX_NAME_CHARS = 100

Rows = Sequence[Mapping[str, Any]]


def spreadsheet_safe(text: str) -> str:
    """`text` as a CSV cell that no spreadsheet runs as a formula."""
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def csv_header(aspects: Sequence[str]) -> list[str]:
    return ["paper_id", "title", *(c for a in aspects for c in (a, f"{a} citation"))]


def as_csv(rows: Rows, aspects: Sequence[str]) -> str:
    """The table as CSV (RFC 4180: CRLF line ends), a header row first."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([spreadsheet_safe(name) for name in csv_header(aspects)])
    for row in rows:
        cells = [row["cells"][a] for a in aspects]
        line = [row["paper_id"], row["title"]]
        line += [v for c in cells for v in (c["text"], c["citation"] or "")]
        writer.writerow([spreadsheet_safe(str(value)) for value in line])
    return out.getvalue()


_MARKDOWN_ESCAPES = str.maketrans(
    {"\\": "\\\\", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
)


def markdown_cell(text: str) -> str:
    """`text` as one cell of a Markdown table: one line, `|` and `\\` escaped, markup as
    entities."""
    return " ".join(text.split()).translate(_MARKDOWN_ESCAPES)


def as_markdown(rows: Rows, aspects: Sequence[str]) -> str:
    """The table as a Markdown (GitHub) table: a cell's citation after its text."""
    head = ["paper", "title", *aspects]
    lines = [
        "| " + " | ".join(markdown_cell(h) for h in head) + " |",
        "|" + "---|" * len(head),
    ]
    for row in rows:
        cells = [row["paper_id"], row["title"]]
        for aspect in aspects:
            cell = row["cells"][aspect]
            cited = f" `{cell['citation']}`" if cell["citation"] else ""
            cells.append(f"{cell['text']}{cited}")
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def file_name(paper_ids: Sequence[str], extension: str) -> str:
    """A safe name for the table's file: `comparison-<ids>.<extension>`, the first few ids
    and how many more, anything but letters, digits, '.', '_' and '-' as '-'."""
    named = "_".join(paper_ids[:_NAMED_PAPERS])
    more = len(paper_ids) - _NAMED_PAPERS
    stem = f"comparison-{named}" + (f"-and-{more}-more" if more > 0 else "")
    safe = _UNSAFE_NAME.sub("-", stem).strip(".-")[:_MAX_NAME_CHARS]
    return f"{safe or 'comparison'}.{extension}"
