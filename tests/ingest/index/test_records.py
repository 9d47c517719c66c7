from __future__ import annotations

import pytest

from ingest.index.records import (
    InvalidPaperId,
    file_name_id,
    normalise_paper_id,
    split_arxiv_id,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2007.01282", "2007.01282"),
        ("2007.01282v2", "2007.01282"),
        ("arXiv:2007.01282v2", "2007.01282"),
        (" ARXIV:2007.01282 ", "2007.01282"),
        ("hep-th/9901001v1", "hep-th/9901001"),
        ("arXiv:math.GT/0309136v2", "math.GT/0309136"),
        ("doc:f83d85b272d5efd7", "f83d85b272d5efd7"),
        ("  doc:f83d85b272d5efd7 ", "f83d85b272d5efd7"),
        ("attention-is-all", "attention-is-all"),
    ],
)
def test_a_paper_id_as_written_becomes_the_index_id(value: str, expected: str) -> None:
    assert normalise_paper_id(value) == expected


@pytest.mark.parametrize(
    ("value", "parts"),
    [("2203.12533v2", ("2203.12533", "v2")), ("arXiv:hep-th/9901001", ("hep-th/9901001", None))],
)
def test_an_arxiv_id_splits_into_id_and_version(value: str, parts: tuple[str, str | None]) -> None:
    assert split_arxiv_id(value) == parts


@pytest.mark.parametrize("value", ["2203.125", "https://arxiv.org/abs/2203.12533", "doc:abc"])
def test_what_is_no_arxiv_id_is_refused_by_name(value: str) -> None:
    with pytest.raises(InvalidPaperId, match="not an arXiv id"):
        split_arxiv_id(value)


@pytest.mark.parametrize(
    ("stem", "named"),
    [
        ("2203.12533v2", ("2203.12533", "v2")),
        ("2203.12533", ("2203.12533", None)),
        ("hep-th_9901001v1", ("hep-th/9901001", "v1")),
        ("2020.acl-main.447", None),
        ("Report_2021001", None),
        ("hep-th/9901001", None),
    ],
)
def test_a_pdf_named_for_its_paper_gives_its_id(
    stem: str, named: tuple[str, str | None] | None
) -> None:
    assert file_name_id(stem) == named
