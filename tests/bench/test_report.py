"""docs/benchmarks.md is made from the result files alone: the latest run of each benchmark and
setup, chosen by date, with the previous run's figures beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.report import PAGE, ResultError, load_runs, render
from bench.results import RESULTS, SCHEMA, table


def _result(commit: str, date: str, hybrid_r1: float, **fields: Any) -> dict[str, Any]:
    recall = table(
        "questions-abstracts.jsonl",
        ["retriever", "R@1", "R@5"],
        [["dense", 0.72, 0.86], ["hybrid", hybrid_r1, 1.0]],
        {"R@1": ".3f", "R@5": ".3f"},
    )
    return {
        "schema": SCHEMA,
        "benchmark": "retrieval",
        "description": "Retrieval and answer quality on the development questions.",
        "command": "python -m bench.quality.retrieval --data-dir /tmp/index",
        "date": date,
        "commit": commit,
        "dirty": False,
        "changed_files": [],
        "machine": {"cores": 2, "memory_gb": 23.5, "python": "3.11.7"},
        "setup": "Index of 1,533 papers",
        "settings": {"data_dir": "/tmp/index"},
        "tables": [recall.as_json()],
        "notes": "",
        "recorded_from": None,
        **fields,
    }


def _write(folder: Path, name: str, result: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(result), encoding="utf-8")


def _row(page: str, first_cell: str) -> str:
    return next(line for line in page.splitlines() if line.startswith(f"| {first_cell} |"))


def test_the_same_files_make_the_same_page_wherever_they_lie(tmp_path: Path) -> None:
    for folder in (tmp_path / "a", tmp_path / "b"):
        _write(folder, "retrieval-1.json", _result("a" * 40, "2026-12-01T10:00:00Z", 0.947))
        _write(folder, "retrieval-2.json", _result("b" * 40, "2026-12-02T10:00:00Z", 0.960))

    first = render(load_runs(tmp_path / "a"))
    second = render(load_runs(tmp_path / "b"))

    assert first == second
    assert first.startswith("# Benchmarks\n")
    assert "| command | `python -m bench.quality.retrieval --data-dir /tmp/index` |" in first


def test_latest_and_previous_are_chosen_by_date_not_by_file_name(tmp_path: Path) -> None:
    _write(tmp_path, "retrieval-c.json", _result("1" * 40, "2026-11-30", 0.900))
    _write(tmp_path, "retrieval-a.json", _result("3" * 40, "2026-12-02T07:00:00Z", 0.960))
    _write(tmp_path, "retrieval-b.json", _result("2" * 40, "2026-12-01T23:59:00+00:00", 0.947))

    page = render(load_runs(tmp_path))

    assert _row(page, "") == ("|  | now (3333333, 2026-12-02) | previous (2222222, 2026-12-01) |")
    assert _row(page, "hybrid") == "| hybrid | 0.960 (0.947) | 1.000 |"
    assert "1111111" not in page
    assert "0.900" not in page


def test_a_figure_that_did_not_move_is_shown_once(tmp_path: Path) -> None:
    _write(tmp_path, "retrieval-1.json", _result("a" * 40, "2026-12-01", 0.960))
    _write(tmp_path, "retrieval-2.json", _result("b" * 40, "2026-12-02", 0.960))

    page = render(load_runs(tmp_path))

    assert _row(page, "hybrid") == "| hybrid | 0.960 | 1.000 |"
    assert _row(page, "dense") == "| dense | 0.720 | 0.860 |"


def test_a_run_over_another_index_is_not_the_previous_run(tmp_path: Path) -> None:
    full = _result("a" * 40, "2026-12-01", 0.493, setup="Index of 74,766 papers")
    _write(tmp_path, "retrieval-full.json", full)
    _write(tmp_path, "retrieval-dev.json", _result("b" * 40, "2026-12-03", 0.960))

    page = render(load_runs(tmp_path))

    assert "### Index of 1,533 papers" in page
    assert "### Index of 74,766 papers" in page
    assert page.index("### Index of 1,533 papers") < page.index("### Index of 74,766 papers")
    assert "previous (" not in page
    assert "| hybrid | 0.960 | 1.000 |" in page
    assert "| hybrid | 0.493 | 1.000 |" in page


def test_figures_recorded_from_a_log_say_so(tmp_path: Path) -> None:
    recorded = _result("0f7a96b", "2026-12-02", 0.960, recorded_from="README.md at commit 0f7a96b")
    _write(tmp_path, "retrieval-1.json", recorded)

    page = render(load_runs(tmp_path))

    assert _row(page, "source") == (
        "| source | recorded from README.md at commit 0f7a96b, not re-run |"
    )


def test_a_result_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "retrieval-broken.json").write_text("{", encoding="utf-8")

    with pytest.raises(ResultError, match=r"retrieval-broken\.json"):
        load_runs(tmp_path)


def test_a_row_only_the_previous_run_gave_keeps_its_place(tmp_path: Path) -> None:
    earlier = _result("a" * 40, "2026-12-01", 0.947)
    later = _result("b" * 40, "2026-12-02", 0.960)
    later["tables"][0]["rows"] = [
        r for r in later["tables"][0]["rows"] if r["retriever"] != "dense"
    ]
    _write(tmp_path, "retrieval-1.json", earlier)
    _write(tmp_path, "retrieval-2.json", later)

    page = render(load_runs(tmp_path))

    rows = [line for line in page.splitlines() if line.startswith(("| dense", "| hybrid"))]
    assert rows == ["| dense | - (0.720) | - (0.860) |", "| hybrid | 0.960 (0.947) | 1.000 |"]


def test_the_committed_page_is_what_the_committed_results_make() -> None:
    made = render(load_runs(RESULTS))

    assert PAGE.read_text(encoding="utf-8") == made, "stale: run python -m bench.report"
