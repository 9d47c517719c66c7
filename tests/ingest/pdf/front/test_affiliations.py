"""Institutions read from page 1 of real PDFs: the affiliations under the authors, set in
columns or under each name, and nothing from notices, e-mails or names."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from ingest.pdf.front.glyphs import read_lines
from ingest.pdf.front.header import read_header
from tests.support.data import PDFS


def _affiliations(name: str) -> tuple[tuple[str, str], ...]:
    document = pdfium.PdfDocument(PDFS / name)
    try:
        return read_header(read_lines(document), "", []).affiliations
    finally:
        document.close()


@pytest.mark.parametrize(
    ("name", "institutions"),
    [
        # Three columns on one line under the names.
        ("2004.04906v3.pdf", ["Facebook AI", "University of Washington", "Princeton University"]),
        # One under each name, each once; the notice above the title names Google too.
        ("1706.03762v7.pdf", ["Google Brain", "Google Research", "University of Toronto"]),
        # A legal form after a comma is part of the name.
        ("1201.3077v1.pdf", ["Google, Inc."]),
        # A parenthesised abbreviation is left out; a raised mark on the name too.
        (
            "2104.08663v4.pdf",
            ["Ubiquitous Knowledge Processing Lab", "Technische Universität Darmstadt"],
        ),
    ],
)
def test_page_one_affiliations_are_read_in_order(name: str, institutions: list[str]) -> None:
    found = _affiliations(name)

    assert [institution for institution, _ in found] == institutions
    assert all(parent == "" for _, parent in found)
