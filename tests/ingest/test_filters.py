from __future__ import annotations

import pytest

from ingest.index.filters import Filters, date_number


@pytest.mark.parametrize(
    ("iso_date", "number"),
    [("2024-03-01", 20240301), ("1999-12-31", 19991231), ("", 0)],
)
def test_an_iso_date_becomes_the_integer_both_indexes_store(iso_date: str, number: int) -> None:
    assert date_number(iso_date) == number


def test_date_numbers_order_as_the_dates_do() -> None:
    dates = ["2023-12-31", "2024-01-01", "2024-02-29", "2024-10-01"]

    numbers = [date_number(d) for d in dates]

    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(dates)


def test_the_published_range_is_open_where_no_date_is_given() -> None:
    both = Filters(published_from="2024-01-01", published_to="2024-06-30")
    since = Filters(published_from="2024-01-01")

    assert both.published_range == (20240101, 20240630)
    assert since.published_range == (20240101, None)
    assert Filters().published_range == (None, None)


def test_with_papers_keeps_the_other_restrictions() -> None:
    filters = Filters(categories=("cs.CL",), published_from="2024-01-01")

    scoped = filters.with_papers(["2203.12533"])

    assert scoped == Filters(("2203.12533",), ("cs.CL",), "2024-01-01", "")
