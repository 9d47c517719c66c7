"""The benchmarks over an index run over the full index unless `--data-dir` names another,
stop saying how to build it when it is missing, and say in their results which index
they ran over."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from bench import dev_index, report, results
from bench.results import GROUPS, ROOT
from chat.settings import Settings
from ingest.index.catalog import Catalog

OVER_AN_INDEX = sorted(
    f"bench.{group}.{path.stem}"
    for group in GROUPS
    for path in (ROOT / "bench" / group).glob("*.py")
    if "data_dir_option(parser)" in path.read_text(encoding="utf-8")
)


class _Parsed(Exception):
    """Raised in place of running a benchmark, with the arguments it parsed."""

    def __init__(self, arguments: argparse.Namespace) -> None:
        self.arguments = arguments


def _parsed(module: str, argv: Sequence[str], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data dir `module`'s parser gives for `argv`, the benchmark itself not run."""
    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(
        parser: argparse.ArgumentParser, args: Sequence[str] | None = None
    ) -> argparse.Namespace:
        raise _Parsed(parse(parser, args))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    monkeypatch.setattr(sys, "argv", [module, *argv])
    with pytest.raises(_Parsed) as parsed:
        importlib.import_module(module).main()
    return Path(parsed.value.arguments.data_dir)


def _index(folder: Path, name: str | None) -> Path:
    folder.mkdir()
    Catalog(Settings(data_dir=folder).catalog_path).close()
    if name is not None:
        dev_index.mark(folder, name)
    return folder


def test_the_quality_benchmarks_over_an_index_take_the_option() -> None:
    assert {module.rpartition(".")[2] for module in OVER_AN_INDEX} >= {
        "adaptation", "answers", "comparison", "definitions", "facts", "fusion", "library",
        "names", "retrieval", "references",
    }  # fmt: skip


@pytest.mark.parametrize("module", OVER_AN_INDEX)
def test_a_benchmark_runs_over_the_full_index_unless_told_otherwise(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = _parsed(module, [], monkeypatch)
    quick = _parsed(module, ["--data-dir", ".cache/dev-index"], monkeypatch)

    assert default == dev_index.FULL_INDEX
    assert quick == Path(".cache/dev-index")


def test_a_missing_full_index_stops_the_benchmark_saying_how_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(dev_index.HOMES, "full", tmp_path / "full-index")

    with pytest.raises(SystemExit) as stopped:
        dev_index.index_at(tmp_path / "full-index")

    message = str(stopped.value.code)
    assert "build it with `python -m bench.full_index`" in message
    assert "--data-dir .cache/dev-index" in message


def test_an_index_that_is_there_is_taken(tmp_path: Path) -> None:
    built = _index(tmp_path / "index", None)

    assert dev_index.index_at(built) == built


def test_results_say_which_index_they_ran_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full, dev = _index(tmp_path / "full", "full"), _index(tmp_path / "dev", "dev")
    other = _index(tmp_path / "other", None)
    monkeypatch.setenv("BENCH_RESULTS", str(tmp_path / "results"))
    table = results.figures("recall", {"recall@5": 0.8})

    written = results.record(
        "facts", [table], about="Facts.", settings={},
        setup=results.index_setup({"papers": 74766}, full), argv=["--data-dir", str(full)],
    )  # fmt: skip

    recorded = json.loads(written.read_text(encoding="utf-8"))
    assert recorded["setup"] == "Full index, 74,766 papers"
    assert recorded["command"] == "python -m bench.quality.facts --data-dir .cache/full-index"
    assert results.index_setup({"papers": 1533}, dev) == (
        "Development index (quick loop), 1,533 papers"
    )
    assert results.index_setup({"papers": 3477}, other) == "Index of 3,477 papers"


def test_earlier_results_are_named_by_the_index_their_command_names() -> None:
    dev = "python -m bench.quality.facts --data-dir .cache/dev-index"
    full = "python -m bench.quality.library --data-dir=.cache/full-index"
    elsewhere = "python -m bench.quality.adaptation --data-dir '<an index of 3,477 papers>'"

    named = [
        report._named_setup("Index of 1,533 papers, sources shuffled", dev),
        report._named_setup("Index of 74,766 papers", full),
        report._named_setup("Index of 3,477 papers", elsewhere),
    ]

    assert named == [
        "Development index (quick loop), 1,533 papers, sources shuffled",
        "Full index, 74,766 papers",
        "Index of 3,477 papers",
    ]
