"""Result files: each benchmark's figures as JSON in bench/results/, beside its printed table.

A benchmark ends with one call to `record()`, which writes
`bench/results/<benchmark>-<UTC time>.json`: the command that made it, the UTC
date, the git commit (and whether the tree had uncommitted changes), the
machine, the settings that matter, and the figures as tables of rows, the
same numbers the benchmark printed. `BENCH_RESULTS` names another folder (the
tests use one), `BENCH_NOTE` adds a note (say, what else loaded the machine).
`python -m bench.report` makes docs/benchmarks.md from these files.

The command is written as a reader types it at the repository's root: paths relative
to it (`../shared/data/pdfs` for the shared data beside it), an index built by
`bench.dev_index` where that builds it, and what lies elsewhere (a temp folder) by
what it holds (`<an index of 1,533 papers>`), or left out where it only says where
the run kept its logs or models.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from bench.dev_index import HOMES, built_index, index_title

ROOT = Path(__file__).resolve().parents[1]
# The shared data, beside the repository: a reader has it at ../shared.
SHARED = ROOT.parent / "shared"
# The folders of benchmark scripts: what the product answers, and how fast and lean it is.
GROUPS = ("quality", "pdf", "speed")
RESULTS = ROOT / "bench" / "results"
SCHEMA = 1
# Environment variables never written to a result: they may hold secrets.
_SECRET = re.compile(r"KEY|SECRET|PASSWORD|TOKEN|DATABASE_URL", re.IGNORECASE)
_DIGITS = re.compile(r"\.(\d+)([f%])$")
# Options that only say where a run keeps files (its logs, a copy of its report, the models
# it downloads): left out of the command when they name a folder a reader does not have,
# since the command makes the same figures without them.
KEPT_ASIDE = frozenset({"--log", "--json", "--models-cache", "--cache-dir", "--models"})

Number = int | float
Cell = str | Number | Sequence[Number | None] | None


@dataclass(frozen=True)
class Table:
    """One printed table: its columns in order, rows keyed by column, and how numbers print.

    A cell holding two figures printed as "a / b" (recall@1 / recall@5, p50 / p99) is a
    list. `formats` maps a column to a format spec (".3f", ".1%"); its numbers are kept
    rounded to what that spec prints. The first `key_columns` columns name a row, so that
    a row of one run is found in another.
    """

    title: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Cell], ...]
    formats: dict[str, str] = field(default_factory=dict)
    key_columns: int = 1

    def key(self, row: Mapping[str, Cell]) -> tuple[str, ...]:
        return tuple(str(row.get(column)) for column in self.columns[: self.key_columns])

    def as_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": list(self.columns),
            "key_columns": self.key_columns,
            "formats": self.formats,
            "rows": [dict(row) for row in self.rows],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Table:
        return cls(
            str(data["title"]),
            tuple(data["columns"]),
            tuple(dict(row) for row in data["rows"]),
            dict(data.get("formats") or {}),
            int(data.get("key_columns", 1)),
        )


def table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    formats: Mapping[str, str] | None = None,
    key_columns: int = 1,
) -> Table:
    """A table from rows given in column order, numbers rounded as `formats` prints them."""
    specs = dict(formats or {})
    keyed = []
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row {row!r} of {title!r} has {len(row)} cells, not {len(columns)}")
        keyed.append(
            {
                name: _rounded(cell, specs.get(name, ""))
                for name, cell in zip(columns, row, strict=True)
            }
        )
    return Table(title, tuple(columns), tuple(keyed), specs, key_columns)


def figures(
    title: str, values: Mapping[str, Cell], formats: Mapping[str, str] | None = None
) -> Table:
    """The figures a benchmark prints on a line of their own: one row, no column naming it."""
    return table(title, list(values), [list(values.values())], formats, key_columns=0)


def index_setup(stats: Mapping[str, Any], data_dir: Path | None = None) -> str:
    """What a benchmark over an index ran over, from the catalog's counts and, given the index's
    `data_dir`, which index it is ("Full index, 74,766 papers", "Development index (quick
    loop), 1,533 papers"): runs over another index, or one of another size, are not compared."""
    if data_dir is None:
        return f"Index of {stats['papers']:,} papers"
    title = index_title(data_dir, stats["papers"])
    return title[:1].upper() + title[1:]


def index_stats(catalog_path: Path) -> dict[str, int]:
    """The counts of an index's catalog, for a benchmark that serves the index without opening
    it itself."""
    from ingest.index.catalog import Catalog

    catalog = Catalog(catalog_path)
    try:
        return catalog.stats()
    finally:
        catalog.close()


def shown_path(path: Path) -> str:
    """A path as a reader types it at the repository's root, on any checkout: relative to
    the repository (`bench/results/`, `../shared/data/pdfs`); an index `bench.dev_index`
    built, where that builds it; anything else, which the reader must provide, in angle
    brackets by what it holds (`<an index of 1,533 papers>`) or by its name."""
    absolute = Path(os.path.abspath(path))  # noqa: PTH100  # resolve() follows symlinks out
    for base in (ROOT, SHARED):
        if absolute.is_relative_to(base):
            return os.path.relpath(absolute, ROOT)
    if (name := built_index(absolute)) is not None:
        return os.path.relpath(HOMES[name], ROOT)
    from chat.settings import Settings

    catalog = Settings(data_dir=absolute).catalog_path
    if catalog.is_file():
        return f"<an index of {index_stats(catalog)['papers']:,} papers>"
    return f"<{absolute.name}>"


def _elsewhere(shown: str) -> bool:
    """Whether a shown path is one the reader must provide (see `shown_path`)."""
    return shown.startswith("<")


def _rounded(cell: Cell, spec: str) -> Cell:
    if isinstance(cell, list | tuple):
        return [None if v is None else _round_number(v, spec) for v in cell]
    if isinstance(cell, bool) or not isinstance(cell, int | float):
        return cell
    return _round_number(cell, spec)


def _round_number(value: Number, spec: str) -> Number:
    match = _DIGITS.search(spec)
    if match is None:
        return value
    digits = int(match.group(1)) + (2 if match.group(2) == "%" else 0)
    return round(value) if digits == 0 else round(float(value), digits)


def record(
    benchmark: str,
    tables: Sequence[Table],
    *,
    about: str | None,
    settings: Mapping[str, Any],
    setup: str = "",
    argv: Sequence[str] | None = None,
    notes: str = "",
) -> Path:
    """Write one run's result file and say where on stderr; the path written.

    `about` is the benchmark module's docstring (its first line is kept); `setup`
    names what the figures are over, so that only runs over the same thing are
    compared ("an index of 1,533 papers"); `argv` defaults to this process's arguments.
    """
    now = datetime.now(UTC).replace(microsecond=0)
    arguments = list(sys.argv[1:] if argv is None else argv)
    note = " ".join(part for part in (notes, os.environ.get("BENCH_NOTE", "")) if part)
    result = {
        "schema": SCHEMA,
        "benchmark": benchmark,
        "description": (about or "").strip().split("\n")[0],
        "command": command(benchmark, arguments),
        "date": now.isoformat().replace("+00:00", "Z"),
        **git_state(),
        "machine": machine(),
        "setup": setup,
        "settings": {**jsonable(settings), "environment": paperchat_environment()},
        "tables": [t.as_json() for t in tables],
        "notes": note,
        "recorded_from": None,
    }
    folder = Path(os.environ.get("BENCH_RESULTS") or RESULTS)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{benchmark}-{now.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"result written to {path}", file=sys.stderr)
    return path


def command(benchmark: str, arguments: Sequence[str] | None = None) -> str:
    """The command line that runs `benchmark` with `arguments` (this process's by default),
    as the result file and the printed table give it."""
    given = list(sys.argv[1:] if arguments is None else arguments)
    return shlex.join(["python", "-m", _module_run(benchmark), *shown_arguments(given)])


def shown_arguments(arguments: Sequence[str]) -> list[str]:
    """`arguments` with every path as `shown_path` gives it, and an option of KEPT_ASIDE
    left out (with its value) when it names a folder the reader does not have."""
    shown: list[str] = []
    for argument in arguments:
        option, equals, value = argument.partition("=")
        if not (equals and option.startswith("--")):
            option, value = (shown[-1] if shown else ""), argument
        if not _names_path(value):
            shown.append(argument)
            continue
        path = shown_path(Path(value))
        if _elsewhere(path) and option in KEPT_ASIDE:
            if not equals:
                shown.pop()
            continue
        shown.append(f"{option}={path}" if equals else path)
    return shown


def _names_path(value: str) -> bool:
    """Whether an argument names a path: an absolute one, or one that is there."""
    if not value or value.startswith("-"):
        return False
    return Path(value).is_absolute() or Path(value).exists()


def _module_run(benchmark: str) -> str:
    """The module that runs `benchmark`: `bench.quality.retrieval` for "retrieval"."""
    for group in GROUPS:
        if (ROOT / "bench" / group / f"{benchmark}.py").is_file():
            return f"bench.{group}.{benchmark}"
    raise ValueError(f"no benchmark {benchmark!r} in bench/{', bench/'.join(GROUPS)}")


def git_state() -> dict[str, Any]:
    """The commit checked out and the tracked files changed since (untracked ones aside)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout if done.returncode == 0 else ""

    changed = sorted(
        line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()
    )
    return {
        "commit": git("rev-parse", "HEAD").strip() or None,
        "dirty": bool(changed),
        "changed_files": changed,
    }


def machine() -> dict[str, Any]:
    """Cores, memory, CPU model, Python and platform, and the load when the run ended."""
    return {
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average": [round(load, 2) for load in os.getloadavg()],
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def paperchat_environment() -> dict[str, str]:
    """The PAPERCHAT_* variables set for the run (they change settings), secrets left out."""
    return {
        name: value
        for name, value in sorted(os.environ.items())
        if name.startswith("PAPERCHAT_") and not _SECRET.search(name)
    }


def jsonable(value: Any) -> Any:
    """Arguments and settings as JSON values: paths and other objects as their text."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
