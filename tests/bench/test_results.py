"""Every benchmark writes its printed figures to a result file, with what made them."""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from bench import dev_index
from bench.quality import authors
from bench.results import (
    GROUPS,
    RESULTS,
    ROOT,
    SCHEMA,
    command,
    figures,
    paperchat_environment,
    shown_path,
    table,
)
from chat.settings import Settings
from ingest.index.catalog import Catalog
from tests.support.data import OAI_SAMPLE

FIELDS = {
    "schema", "benchmark", "description", "command", "date", "commit", "dirty",
    "changed_files", "machine", "setup", "settings", "tables", "notes", "recorded_from",
}  # fmt: skip
# The modules of bench/ that measure nothing themselves: the servers and streams the serving
# benchmarks drive, the result files and the page made from them.
# bench/ itself holds what the benchmarks share; the benchmarks are in its GROUPS.
HARNESS = {
    "__init__", "load", "servers", "upstream", "results", "report", "dev_index", "full_index",
    "balancer", "hostile",
}  # fmt: skip


def test_a_benchmark_run_writes_the_figures_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BENCH_RESULTS", str(tmp_path))
    monkeypatch.setenv("BENCH_NOTE", "tests ran beside it")
    arguments = ["--abstracts", str(OAI_SAMPLE), "--name", "I. Grabec", "--name", "Nobody Here"]
    monkeypatch.setattr(sys, "argv", ["bench/quality/authors.py", *arguments])

    authors.main()

    [written] = tmp_path.glob("authors-*.json")
    result = json.loads(written.read_text(encoding="utf-8"))
    printed = capsys.readouterr().out
    assert set(result) == FIELDS
    assert result["schema"] == SCHEMA
    assert result["command"] == (
        "python -m bench.quality.authors --abstracts ../shared/data/arxiv/oai-snapshot-sample.jsonl"
        " --name 'I. Grabec' --name 'Nobody Here'"
    )
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result["date"])
    assert written.name == f"authors-{re.sub(r'[-:]', '', result['date'])}.json"
    assert re.fullmatch(r"[0-9a-f]{40}", result["commit"])
    assert result["machine"]["cores"] >= 1
    assert result["machine"]["memory_gb"] > 0
    assert result["setup"] == "200 papers of ../shared/data/arxiv/oai-snapshot-sample.jsonl"
    assert result["notes"] == "tests ran beside it"
    assert result["recorded_from"] is None
    index, names = result["tables"]
    assert index["rows"][0]["papers"] == 200
    assert f"{index['rows'][0]['author names']} author names" in printed
    assert [(r["name"], r["papers"]) for r in names["rows"]] == [
        ("I. Grabec", 6),
        ("Nobody Here", 0),
    ]
    assert "| `I. Grabec` | 6 |" in printed


def test_every_benchmark_records_its_figures() -> None:
    scripts = {
        path.stem: path.read_text(encoding="utf-8")
        for group in GROUPS
        for path in sorted((ROOT / "bench" / group).glob("*.py"))
        if path.stem != "__init__"
    }

    silent = sorted(name for name, source in scripts.items() if "results.record(" not in source)

    assert len(scripts) == 29
    assert silent == []
    assert {path.stem for path in (ROOT / "bench").glob("*.py")} == HARNESS


def test_figures_are_kept_as_they_print() -> None:
    recall = table(
        "recall", ["setting", "keyword", "share"], [["dense alone", [0.7466, 0.8412], 0.73049]],
        {"keyword": ".2f", "share": ".1%"},
    )  # fmt: skip
    line = figures("latency", {"p50 ms": 32.94, "questions": 150}, {"p50 ms": ".1f"})

    assert recall.rows == ({"setting": "dense alone", "keyword": [0.75, 0.84], "share": 0.73},)
    assert line.rows == ({"p50 ms": 32.9, "questions": 150},)
    assert line.key_columns == 0


def test_paths_read_as_typed_at_the_repository_root(tmp_path: Path) -> None:
    shown = [shown_path(ROOT / "bench" / "data" / "everyday.txt"), shown_path(OAI_SAMPLE)]

    assert shown == ["bench/data/everyday.txt", "../shared/data/arxiv/oai-snapshot-sample.jsonl"]
    assert shown_path(tmp_path / "start.log") == "<start.log>"


def test_a_command_names_indexes_where_the_reader_builds_them(tmp_path: Path) -> None:
    built = tmp_path / "dev"
    built.mkdir()
    dev_index.mark(built, "dev")
    other = tmp_path / "other"
    other.mkdir()
    Catalog(Settings(data_dir=other).catalog_path).close()
    arguments = [
        "--data-dir", str(built), "--json", str(tmp_path / "report.json"),
        "--models-cache", str(ROOT / ".cache" / "models"), "--files", "questions-hard.jsonl",
    ]  # fmt: skip

    shown = command("retrieval", arguments)
    elsewhere = command("adaptation", ["--data-dir", str(other), f"--log={tmp_path / 'a.log'}"])

    assert shown == (
        "python -m bench.quality.retrieval --data-dir .cache/dev-index"
        " --models-cache .cache/models --files questions-hard.jsonl"
    )
    assert elsewhere == "python -m bench.quality.adaptation --data-dir '<an index of 0 papers>'"


def test_a_row_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="'recall'"):
        table("recall", ["retriever", "R@1"], [["dense"]])


def test_secrets_in_the_environment_are_not_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERCHAT_RETRIEVAL__NAMES__BOOST", "0")
    monkeypatch.setenv("PAPERCHAT_SECRET_KEY", "hunter2")
    monkeypatch.setenv("PAPERCHAT_OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("PAPERCHAT_DATABASE_URL", "postgresql://u:p@db/x")

    environment = paperchat_environment()

    assert environment["PAPERCHAT_RETRIEVAL__NAMES__BOOST"] == "0"
    assert not {"PAPERCHAT_SECRET_KEY", "PAPERCHAT_OPENAI_API_KEY"} & set(environment)
    assert "PAPERCHAT_DATABASE_URL" not in environment


def test_every_committed_result_says_what_made_it() -> None:
    files = sorted(RESULTS.glob("*.json"))

    results = [json.loads(path.read_text(encoding="utf-8")) for path in files]

    assert files
    for path, result in zip(files, results, strict=True):
        assert set(result) == FIELDS, path.name
        assert path.name.startswith(f"{result['benchmark']}-"), path.name
        module = result["command"].split()[2]
        assert result["command"].startswith("python -m bench."), path.name
        assert module.rpartition(".")[2] == result["benchmark"], path.name
        assert (ROOT / f"{module.replace('.', '/')}.py").is_file(), path.name
        assert result["tables"], path.name
        assert all(t["rows"] for t in result["tables"]), path.name


class _Parsed(Exception):
    """Raised in place of running a benchmark, once its arguments are parsed."""


def _refusal(module: str, arguments: list[str], monkeypatch: pytest.MonkeyPatch) -> str | None:
    """Why `module`'s argument parser refuses `arguments` (None when it takes them), the
    benchmark itself not run."""
    script = importlib.import_module(module)
    if "ArgumentParser" not in Path(str(script.__file__)).read_text(encoding="utf-8"):
        return f"{module} takes no arguments" if arguments else None
    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(
        parser: argparse.ArgumentParser, args: Sequence[str] | None = None
    ) -> argparse.Namespace:
        raise _Parsed(parse(parser, args))

    with monkeypatch.context() as patched:
        patched.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
        patched.setattr(sys, "argv", [module, *arguments])
        try:
            script.main()
        except _Parsed:
            return None
        except SystemExit as e:
            return f"{module} exits {e.code} on {arguments}"
    return f"{module} ran without parsing its arguments"


def _unrunnable(argument: str) -> bool:
    """Whether an argument names a path a reader at the repository's root does not have."""
    value = argument.partition("=")[2] if argument.startswith("--") else argument
    return (
        Path(value).is_absolute()
        or tempfile.gettempdir() in value
        or (value.startswith("..") and not value.startswith("../shared/"))
    )


def test_every_committed_command_runs_as_written_at_the_repository_root(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = {
        path.name: shlex.split(json.loads(path.read_text(encoding="utf-8"))["command"])
        for path in sorted(RESULTS.glob("*.json"))
    }

    unrunnable = {name: [a for a in words if _unrunnable(a)] for name, words in commands.items()}
    refused = {name: _refusal(words[2], words[3:], monkeypatch) for name, words in commands.items()}
    capsys.readouterr()  # argparse's own messages, said again in the refusals

    assert {name: found for name, found in unrunnable.items() if found} == {}
    assert {name: why for name, why in refused.items() if why} == {}


def test_a_command_the_script_would_refuse_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    arguments = ["--data-dir", ".cache/dev-index", "--rounds", "3"]

    refused = _refusal("bench.quality.facts", arguments, monkeypatch)

    assert refused == f"bench.quality.facts exits 2 on {arguments}"
    assert _unrunnable("/tmp/paperchat-bench/dev")
    assert _unrunnable("--log=../fullindex/start.log")
    assert not _unrunnable("../shared/data/pdfs")
