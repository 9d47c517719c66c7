"""Figures the benchmarks report: percentiles."""

from __future__ import annotations

from chat.rag.retrieval.evaluation import percentile


def test_percentiles_interpolate_between_the_nearest_values() -> None:
    values = [40.0, 10.0, 30.0, 20.0]  # any order
    assert percentile(values, 0) == 10.0
    assert percentile(values, 50) == 25.0
    assert percentile(values, 100) == 40.0
    assert percentile(list(range(101)), 95) == 95.0
    assert abs((percentile(values, 95) or 0.0) - 38.5) < 1e-9


def test_a_percentile_of_nothing_is_none_and_of_one_value_that_value() -> None:
    assert percentile([], 50) is None
    assert percentile([7.0], 99) == 7.0
