"""Fuzzing the PDF parser over mutations of real papers: whatever the bytes, `parse_pdf`
reads pages or refuses the file with PdfError, within a time and a memory limit (in a
worker, as ingest runs it), and never raises anything else."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.pdf.isolation import PDF_MAX_MB
from ingest.pdf.parsing import PdfError, parse_pdf
from tests.support.data import PDFS
from tests.support.worlds.fuzzing import Mutant, Sandbox, fuzz_settings, mutations, splices

pytestmark = pytest.mark.timeout(300)

# The three smallest papers (one and two columns, 6 to 16 pages): each parses in well
# under a second, so a run tries many of their mutations.
SMALLEST = sorted(PDFS.glob("*.pdf"), key=lambda path: path.stat().st_size)[:3]
FIRST, SECOND, THIRD = ((path.name, path.read_bytes()) for path in SMALLEST)
DEADLINE_S = 30
FUZZ = fuzz_settings(examples=25, deadline_s=DEADLINE_S)


def parse_outcome(path: str) -> str:
    """Run in the worker: "read" when the file gives pages, "refused" for PdfError, else
    what went wrong."""
    try:
        parsed = parse_pdf(path)
    except PdfError:
        return "refused"
    except Exception as e:  # noqa: BLE001 - the property under test: no other error escapes
        where = traceback.extract_tb(e.__traceback__)[-1]
        return f"{type(e).__name__}: {e} ({where.filename}:{where.lineno})"
    return "read" if parsed.page_count > 0 else "no pages and no PdfError"


@pytest.fixture(name="sandbox")
def sandbox_fixture() -> Iterator[Sandbox]:
    sandbox = Sandbox(timeout_s=DEADLINE_S, memory_limit_mb=PDF_MAX_MB)
    yield sandbox
    sandbox.close()


def _outcome(sandbox: Sandbox, path: Path, mutant: Mutant) -> object:
    path.write_bytes(mutant.data)
    return sandbox.run(parse_outcome, str(path))


@FUZZ
@given(mutant=st.one_of(mutations(*FIRST), mutations(*SECOND), mutations(*THIRD)))
def test_a_mutated_pdf_is_read_or_refused(sandbox: Sandbox, tmp_path: Path, mutant: Mutant) -> None:
    outcome = _outcome(sandbox, tmp_path / "paper.pdf", mutant)

    assert outcome in {"read", "refused"}, mutant


@FUZZ
@given(mutant=st.one_of(splices(FIRST, SECOND), splices(SECOND, THIRD), splices(THIRD, FIRST)))
def test_two_pdfs_spliced_are_read_or_refused(
    sandbox: Sandbox, tmp_path: Path, mutant: Mutant
) -> None:
    outcome = _outcome(sandbox, tmp_path / "spliced.pdf", mutant)

    assert outcome in {"read", "refused"}, mutant


# A page tree that counts one page and holds none.
PAGE_COUNTED_BUT_MISSING = (
    b"%PDF-1.4\n"
    b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    b"2 0 obj\n<< /Type /Pages /Kids [] /Count 1 >>\nendobj\n"
    b"xref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \n"
    b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n110\n%%EOF\n"
)


def test_a_page_the_document_counts_but_cannot_give_is_a_corrupt_pdf(tmp_path: Path) -> None:
    path = tmp_path / "missing-page.pdf"
    path.write_bytes(PAGE_COUNTED_BUT_MISSING)

    with pytest.raises(PdfError) as raised:
        parse_pdf(str(path))

    assert str(raised.value) == f"cannot parse {str(path)!r}: corrupt PDF (Failed to load page.)"


# Two lines of body text, and a word set beyond the page's right edge (x 640 of 612).
WORD_OFF_THE_PAGE = (
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
    b"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
    b" /Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n"
    b"4 0 obj\n<< /Length 254 >>\nstream\n"
    b"BT /F1 10 Tf 72 720 Td (Words set where the page ends are read as the rest of the body"
    b" text is read.) Tj ET BT /F1 10 Tf 72 700 Td (Words set where the page ends are read as"
    b" the rest of the body text is read.) Tj ET BT /F1 10 Tf 640 680 Td (beyond) Tj ET"
    b"\nendstream\nendobj\n"
    b"5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n"
    b"trailer\n<< /Size 6 /Root 1 0 R >>\n%%EOF\n"
)


def test_a_word_set_beyond_the_page_edge_is_read_with_the_page(tmp_path: Path) -> None:
    path = tmp_path / "off-the-page.pdf"
    path.write_bytes(WORD_OFF_THE_PAGE)

    parsed = parse_pdf(str(path))

    assert parsed.page_count == 1
    text = " ".join(block.text for block in parsed.blocks)
    assert "the rest of the body text is read" in text
