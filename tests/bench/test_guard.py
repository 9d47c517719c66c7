"""The citation guard's benchmark: its answers go through every path of the guard, its
pieces are what a model streams, and a run writes one row per answer and one for all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.speed import guard as benchmark
from chat.rag.citations.guard import CitationGuard

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("name", list(benchmark.ANSWERS))
def test_each_answer_cites_sources_and_makes_one_up_as_models_do(name: str) -> None:
    guard = CitationGuard(benchmark.sources())
    pieces = benchmark.pieces_of(benchmark.ANSWERS[name], 3, 8, seed=44)

    out = "".join(guard.feed(piece) for piece in pieces) + guard.flush()

    assert len(guard.citations) >= 4
    assert len(guard.dropped) >= 1
    assert out.count("[arXiv:") >= 6


def test_pieces_are_three_to_eight_characters_and_make_the_answer() -> None:
    text = benchmark.ANSWERS["cited prose"]

    pieces = benchmark.pieces_of(text, 3, 8, seed=1)

    assert "".join(pieces) == text
    assert {len(piece) for piece in pieces[:-1]} <= set(range(3, 9))
    assert len({len(piece) for piece in pieces}) > 3


def test_a_run_records_the_cpu_per_piece_and_per_answer_of_each_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_RESULTS", str(tmp_path))

    benchmark.main(["--runs", "1", "--repeats", "1"])

    [written] = tmp_path.glob("guard-*.json")
    [table] = json.loads(written.read_text(encoding="utf-8"))["tables"]
    assert [row["answers"] for row in table["rows"]] == [*benchmark.ANSWERS, "all"]
    assert all(row["CPU per piece, µs (median run)"] > 0 for row in table["rows"])
    assert all(row["pieces per answer"] > 100 for row in table["rows"])
