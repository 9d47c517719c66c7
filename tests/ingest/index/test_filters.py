from __future__ import annotations

import pytest

from ingest.index.filters import Filters, UnresolvedAuthor, date_number


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


def test_an_author_resolved_within_the_papers_asked_for_keeps_only_theirs() -> None:
    filters = Filters(("2203.12533", "1706.03762"), ("cs.CL",), author="Ashish Vaswani")

    resolved = filters.within(["1706.03762", "1803.02155", "1706.03762"])
    alone = Filters(author="A. Vaswani").within(["1803.02155"])
    elsewhere = Filters(("2203.12533",), author="A. Vaswani").within(["1803.02155"])

    assert resolved.searched_papers == ("1706.03762",)
    assert resolved.categories == ("cs.CL",)
    assert alone.searched_papers == ("1803.02155",)
    assert elsewhere.searched_papers == ()
    assert elsewhere.matches_nothing
    assert not Filters().matches_nothing


def test_a_search_given_an_unresolved_author_is_refused() -> None:
    with pytest.raises(UnresolvedAuthor, match="Ashish Vaswani"):
        Filters(author="Ashish Vaswani").check_resolved()

    Filters(author="Ashish Vaswani").within([]).check_resolved()
    Filters(("1706.03762",)).check_resolved()
