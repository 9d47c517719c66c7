"""Citation marks of real PDF pages named by their papers' reference lists: by the number
printed with an entry, or by authors and year, and what names nothing."""

from __future__ import annotations

from functools import cache

import pytest

from ingest.index.records import Reference
from ingest.pdf.parsing import parse_pdf
from ingest.references import MAX_REFERENCES, read_references
from ingest.references.linking import ReferenceList
from ingest.references.marks import Cite
from tests.support.data import PDFS, pdf_page_texts

pytestmark = pytest.mark.timeout(300)


@cache
def _stored(name: str) -> tuple[Reference, ...]:
    return read_references(parse_pdf(str(PDFS / name)).blocks)


@cache
def _list(name: str) -> ReferenceList:
    return ReferenceList(_stored(name), pdf_page_texts(name))


def _named(name: str, page: int) -> list[tuple[str, list[str]]]:
    marks = _list(name).page_marks(page, pdf_page_texts(name)[page - 1])
    return [(mark.text, [entry.reference.title for entry in entries]) for mark, entries in marks]


def test_numbers_name_the_entries_printed_with_them() -> None:
    named = dict(_named("1512.03385v1.pdf", 1))

    assert named["[41]"] == ["Very deep convolutional networks for large-scale image recognition"]
    assert named["[22, 21]"] == [
        "Backpropagation applied to handwritten zip code recognition",
        "Imagenet classification with deep convolutional neural networks",
    ]


def test_an_entry_the_stored_list_lost_is_still_named_by_its_number() -> None:
    references = _list("2203.00130v1.pdf")

    numbers = [entry.number for entry in references.entries]
    lost = [entry for entry in references.entries if entry.position is None]
    assert len(_stored("2203.00130v1.pdf")) < len(numbers)
    assert numbers[:5] == [1, 2, 3, 4, 5]
    assert lost
    assert references.resolve(Cite(number=lost[0].number)) is lost[0]
    assert lost[0].printed


def test_authors_and_year_name_the_entry_and_a_suffix_picks_between_two() -> None:
    references = _list("2204.02311v1.pdf")

    first = references.resolve(Cite(None, ("Devlin",), True, 2019, "a"))
    second = references.resolve(Cite(None, ("Devlin",), True, 2019, "b"))

    assert first is not None
    assert second is not None
    assert first.reference.title == second.reference.title
    assert "2019a." in first.printed
    assert "2019b." in second.printed


def test_a_citation_of_one_author_names_the_entry_of_that_author_alone() -> None:
    references = _list("Adam_ A Method for Stochastic Optimization.pdf")

    alone = references.resolve(Cite(None, ("Graves",), False, 2013))
    with_others = references.resolve(Cite(None, ("Graves",), True, 2013))

    assert alone is not None
    assert alone.reference.title == "Generating sequences with recurrent neural networks"
    assert with_others is None  # two entries of Graves and others in 2013: no telling


def test_a_year_the_entry_was_read_wrong_for_is_found_in_its_printed_text() -> None:
    entry = _list("2010.11929v2.pdf").resolve(Cite(None, ("Kolesnikov",), True, 2020))

    assert entry is not None
    assert entry.reference.title.startswith("Big transfer (BiT)")
    assert entry.reference.year != 2020


def test_the_second_author_of_a_two_author_citation_must_be_the_entrys() -> None:
    references = _list("2004.04906v3.pdf")

    right = references.resolve(Cite(None, ("Robertson", "Zaragoza"), False, 2009))
    wrong = references.resolve(Cite(None, ("Robertson", "Lee"), False, 2009))

    assert right is not None
    assert right.reference.title.startswith("The probabilistic relevance framework")
    assert wrong is None


def test_a_number_past_the_list_or_a_name_not_in_it_names_nothing() -> None:
    numbered, author_year = _list("1512.03385v1.pdf"), _list("2004.04906v3.pdf")  # 50 entries

    assert numbered.resolve(Cite(number=51)) is None
    assert numbered.resolve(Cite(None, ("He",), True, 2016)) is None
    assert author_year.resolve(Cite(number=3)) is None
    assert author_year.resolve(Cite(None, ("Nobody",), True, 2019)) is None
    marks = numbered.page_marks(1, "beyond the list [51] and [1-1000] of [9999]")
    assert [(mark.text, len(entries)) for mark, entries in marks] == [("[1-1000]", 50)]


def test_the_numbers_a_reference_list_prints_before_its_entries_are_no_marks() -> None:
    texts = pdf_page_texts("1512.03385v1.pdf")

    assert "[41] K. Simonyan" in texts[8].replace("\r\n", " ")
    assert _named("1512.03385v1.pdf", 9) == []


def test_a_pdf_without_a_reference_list_has_no_marks() -> None:
    name = "1201.3077v1.pdf"

    marks = [
        _list(name).page_marks(n, text) for n, text in enumerate(pdf_page_texts(name), start=1)
    ]

    assert _stored(name) == ()
    assert _list(name).entries == []
    assert all(found == [] for found in marks)


def test_a_list_of_thousands_of_entries_is_read_to_its_bound() -> None:
    listed = "\r\n".join(
        f"[{n}] A. Author. Title number {n}. In Venue, 2019." for n in range(1, 3001)
    )

    references = ReferenceList((), ["Body text [2999] and [12].", f"References\r\n{listed}"])

    assert len(references.entries) == MAX_REFERENCES
    assert references.resolve(Cite(number=12)) is not None
    assert references.resolve(Cite(number=2999)) is None
    assert [m.text for m, _ in references.page_marks(1, "Body text [2999] and [12].")] == ["[12]"]
