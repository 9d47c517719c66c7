"""A paper's first submission, from its record, its id and its PDF, on the real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.index.records import Paper
from ingest.pdf.parsing import parse_pdf
from ingest.sources.dates import finer, first_submission, id_month, iso_date
from ingest.sources.metadata import read_metadata
from ingest.sources.units import paper_from_pdf, pdf_identity
from tests.support.data import ABSTRACTS, OAI_SAMPLE, PDFS


@pytest.mark.parametrize(
    ("paper_id", "month"),
    [
        ("1907.00326", "2019-07"),
        ("0704.0001", "2007-04"),
        ("2412.19437", "2024-12"),
        ("hep-th/9901001", "1999-01"),
        ("math.GT/0309136", "2003-09"),
        ("cond-mat/0702001", "2007-02"),
        ("2413.00001", ""),  # month 13
        ("0612.0001", ""),  # new-style ids began in April 2007
        ("hep-th/0704001", ""),  # and old-style ones ended in March 2007
        ("3fa9c2e1b07d4e55", ""),  # a document's hash id
    ],
)
def test_an_arxiv_id_says_the_month_it_was_given_in(paper_id: str, month: str) -> None:
    assert id_month(paper_id) == month


def test_a_date_that_contradicts_the_ids_month_is_not_its_first_submission() -> None:
    assert first_submission("1907.00326", "2019-07-01") == "2019-07-01"
    assert first_submission("1907.00326", "2025-08-05") == "2019-07"
    assert first_submission("0704.0002", "2007-03-31") == "2007-03-31"  # a day's time zone
    assert first_submission("1907.00326", "") == "2019-07"
    assert first_submission("3fa9c2e1b07d4e55", "2020-06-05") == "2020-06-05"


def test_a_day_refines_a_month_but_never_replaces_it() -> None:
    assert finer("2019-07", "2019-07-03") == "2019-07-03"
    assert finer("2019-07", "2023-08-02") == "2019-07"
    assert finer("2019-07-03", "2019-07-09") == "2019-07-03"
    assert finer("", "2019-07-03") == ""


def test_dates_are_read_in_the_formats_arxiv_writes() -> None:
    assert iso_date("Mon, 2 Apr 2007 19:18:42 GMT") == "2007-04-02"
    assert iso_date("2022-03-23T16:56:21Z") == "2022-03-23"
    assert iso_date("2025-08-05") == "2025-08-05"
    assert iso_date("2021-02-30") == ""
    assert iso_date("yesterday") == ""


def test_every_snapshot_record_is_dated_by_its_first_and_last_versions() -> None:
    records = [json.loads(line) for line in OAI_SAMPLE.read_text(encoding="utf-8").splitlines()]

    papers = [p for p in read_metadata(OAI_SAMPLE) if isinstance(p, Paper)]

    assert len(papers) == len(records) == 200
    for record, paper in zip(records, papers, strict=True):
        assert paper.id == record["id"]
        assert paper.published == iso_date(record["versions"][0]["created"]), paper.id
        assert paper.updated == iso_date(record["versions"][-1]["created"]), paper.id
    first = papers[0]
    assert (first.published, first.updated) == ("2007-04-02", "2007-07-24")
    assert first.doi == "10.1103/PhysRevD.76.013009"
    assert first.journal_ref == "Phys.Rev.D76:013009,2007"


def test_no_abstract_record_is_dated_by_the_day_its_record_last_changed() -> None:
    papers = {p.id: p for p in read_metadata(ABSTRACTS) if isinstance(p, Paper)}

    assert len(papers) == 74728
    undated = [p.id for p in papers.values() if p.published != id_month(p.id)]
    assert undated == []
    acl = papers["1907.00326"]
    assert (acl.published, acl.updated) == ("2019-07", "2025-08-05")
    assert "ACL 2019" in acl.comments


def _pdf_paper(path: Path) -> Paper:
    parsed = parse_pdf(str(path))
    paper_id, version, is_arxiv = pdf_identity(path, parsed)
    return paper_from_pdf(path, parsed, paper_id, version, is_arxiv)


@pytest.mark.parametrize(
    ("name", "published", "updated"),
    [
        ("1706.03762v7.pdf", "2017-06", "2023-08-02"),  # Attention: version 7's stamp
        ("Adam_ A Method for Stochastic Optimization.pdf", "2014-12", "2017-01-30"),
        ("2007.01282v2.pdf", "2020-07", "2021-02-03"),  # FiD
    ],
)
def test_a_later_versions_pdf_is_dated_by_its_ids_month_not_its_stamp(
    name: str, published: str, updated: str
) -> None:
    paper = _pdf_paper(PDFS / name)

    assert (paper.published, paper.updated) == (published, updated)


def test_a_first_versions_stamp_gives_the_day() -> None:
    paper = _pdf_paper(PDFS / "2304.02623v1.pdf")

    assert paper.published == "2023-04-05"
