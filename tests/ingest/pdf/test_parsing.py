from __future__ import annotations

import resource
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.index.records import ParsedPdf
from ingest.pdf import Failure, extract_pdfs
from ingest.pdf.parsing import MAX_PAGE_CHARS, PdfError, parse_pdf
from tests.support.data import PDFS
from tests.support.worlds import pdf_fixtures

pytestmark = pytest.mark.timeout(60)

ADAM = PDFS / "Adam_ A Method for Stochastic Optimization.pdf"
ZERO_SHOT = PDFS / "Zhu et al. - 2020 - Zero-Shot Detection.pdf"
S2ORC = PDFS / "2020.acl-main.447.pdf"
LONGEVAL = PDFS / "2023.eacl-main.121.pdf"
TRANSFORMER = PDFS / "1706.03762v7.pdf"


def test_stamp_gives_id_version_and_category_of_a_human_named_pdf() -> None:
    parsed = parse_pdf(str(ADAM))

    assert (parsed.stamp_id, parsed.stamp_version, parsed.stamp_category) == (
        "1412.6980",
        "v9",
        "cs.LG",
    )


def test_stamp_found_in_a_two_column_journal_paper() -> None:
    parsed = parse_pdf(str(ZERO_SHOT))

    assert (parsed.stamp_id, parsed.stamp_version, parsed.stamp_category) == (
        "1803.07113",
        "v2",
        "cs.CV",
    )


@pytest.mark.parametrize("path", [S2ORC, LONGEVAL], ids=["acl-2020", "eacl-2023"])
def test_anthology_pdf_has_no_stamp(path: Path) -> None:
    parsed = parse_pdf(str(path))

    assert (parsed.stamp_id, parsed.stamp_version, parsed.stamp_category) == ("", "", "")


def test_metadata_title_and_authors_come_from_the_document_info() -> None:
    parsed = parse_pdf(str(S2ORC))

    assert parsed.metadata_title == "S2ORC: The Semantic Scholar Open Research Corpus"
    assert parsed.metadata_authors.startswith("Kyle Lo ; Lucy Lu Wang")


@pytest.mark.parametrize(
    ("path", "title"),
    [
        (ADAM, "ADAM: A METHOD FOR STOCHASTIC OPTIMIZATION"),
        (TRANSFORMER, "Attention Is All You Need"),
        (ZERO_SHOT, "Zero Shot Detection"),
        (
            LONGEVAL,
            "LONGEVAL: Guidelines for Human Evaluation of Faithfulness in Long-form Summarization",
        ),
    ],
    ids=["adam", "transformer", "zero-shot", "longeval"],
)
def test_first_page_title_is_the_largest_line_without_the_venue_banner(
    path: Path, title: str
) -> None:
    parsed = parse_pdf(str(path))

    assert parsed.first_page_title == title


def test_file_hash_and_page_count_describe_the_file() -> None:
    parsed = parse_pdf(str(TRANSFORMER))

    assert parsed.page_count == 15
    assert len(parsed.sha256) == 64
    assert parsed.path == str(TRANSFORMER)
    assert {block.page for block in parsed.blocks} == set(range(1, 16))


BadPdf = Callable[[Path], Path]


def _truncated(path: Path) -> Path:
    return pdf_fixtures.write_truncated_pdf(path, TRANSFORMER)


@pytest.mark.parametrize(
    ("write", "reason"),
    [
        (pdf_fixtures.write_empty_file, "the file is empty (0 bytes)"),
        (pdf_fixtures.write_not_a_pdf, "not a PDF"),
        (_truncated, "truncated"),
        (pdf_fixtures.write_corrupt_pdf, "corrupt PDF"),
        (pdf_fixtures.write_encrypted_pdf, "encrypted (a password is required)"),
        (pdf_fixtures.write_image_only_pdf, "no text layer"),
    ],
    ids=["empty", "not-pdf", "truncated", "corrupt", "encrypted", "image-only"],
)
def test_bad_input_raises_pdf_error_naming_file_and_reason(
    tmp_path: Path, write: BadPdf, reason: str
) -> None:
    path = write(tmp_path / "paper.pdf")

    with pytest.raises(PdfError) as raised:
        parse_pdf(str(path))

    assert str(path) in str(raised.value)
    assert reason in str(raised.value)


def test_missing_file_raises_pdf_error(tmp_path: Path) -> None:
    path = tmp_path / "absent.pdf"

    with pytest.raises(PdfError, match="cannot read") as raised:
        parse_pdf(str(path))

    assert str(path) in str(raised.value)


def test_the_stage_hands_back_every_file_in_order_with_its_text_or_reason(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot a PDF after all")
    files = [TRANSFORMER, broken, ADAM]

    outcomes = list(extract_pdfs(files, workers=2))

    assert [path for path, _ in outcomes] == files
    first, failed, last = (outcome for _, outcome in outcomes)
    assert isinstance(first, ParsedPdf)
    assert first.path == str(TRANSFORMER)
    assert first.page_count == 15
    assert any("Scaled Dot-Product Attention" in b.text for b in first.blocks)
    assert isinstance(failed, Failure)
    assert "broken.pdf" in failed.reason
    assert isinstance(last, ParsedPdf)
    assert last.stamp_id == "1412.6980"


def test_page_with_more_text_than_a_paper_is_refused_naming_the_page(tmp_path: Path) -> None:
    path = pdf_fixtures.write_inflating_pdf(tmp_path / "dense.pdf", b"(ab) Tj ", 2 * 1024 * 1024)

    with pytest.raises(PdfError) as raised:
        parse_pdf(str(path))

    assert str(raised.value).startswith(f"cannot parse {str(path)!r}: page 1 holds ")
    assert f"over the limit of {MAX_PAGE_CHARS} per page" in str(raised.value)


def test_inflating_pdfs_beside_real_ones_are_skipped_alone_over_the_memory_limit(
    tmp_path: Path,
) -> None:
    operators = pdf_fixtures.write_inflating_pdf(tmp_path / "ops.pdf", b"(ab) Tj ", 400 << 20)
    spaces = pdf_fixtures.write_inflating_pdf(tmp_path / "spaces.pdf", b" ", 600 << 20)
    files = [TRANSFORMER, operators, spaces, ADAM]
    parent_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    outcomes = dict(extract_pdfs(files, workers=1, timeout_s=100, max_mb=512))

    assert max(operators.stat().st_size, spaces.stat().st_size) < 2 << 20
    assert isinstance(outcomes[TRANSFORMER], ParsedPdf)
    assert isinstance(outcomes[ADAM], ParsedPdf)
    for bomb in (operators, spaces):
        failure = outcomes[bomb]
        assert isinstance(failure, Failure)
        assert failure.reason.startswith("over the memory limit of 512 MB")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - parent_before) // 1024
    assert grown_mb < 100  # the inflated content (1000 MB) never reaches the parent
