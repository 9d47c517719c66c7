"""docs/benchmarks.md from bench/results/*.json: each benchmark's latest run beside the previous.

Runs are compared only with runs over the same setup (the same index, the same
texts); within one, the latest and the previous are chosen by their dates. A
figure in parentheses is the previous run's, where it differs. The page is made
from the result files alone, so the same files always make the same page.

    python -m bench.report            # write docs/benchmarks.md
    python -m bench.report --check    # exit 1 if the page is not what the files make
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from bench.dev_index import DEV_INDEX, FULL_INDEX, HOMES, TITLES, command_of
from bench.results import RESULTS, ROOT, Cell, Table, shown_path

PAGE = ROOT / "docs" / "benchmarks.md"
# How a setup over an index read before results said which index it was.
_INDEX_OF = re.compile(r"Index of (?P<papers>[\d,]+ papers)")
HEADER = f"""\
# Benchmarks

<!-- Made by `python -m bench.report` from bench/results/*.json: edit those, not this page. -->

Each script in `bench/` prints its table and writes the same figures to
`bench/results/<benchmark>-<UTC time>.json`, with the command that made them, the
commit, the machine and the settings. This page shows, for each benchmark and
what it ran over, the latest run's tables; a figure in parentheses is the previous
run's over the same setup, where it differs, and `-` a figure a run did not give.
Runs whose figures were copied from an earlier run's log rather than made by the
script say so under "source". The machine has 2 cores shared with other work, so
timings move between runs by more than the code moves them.

Each command runs from the repository's root, with the shared data beside it
(`../shared/data`). The indexes the commands read are built first, where they name
them: `{shown_path(DEV_INDEX)}`, the development index (about 1,500 papers: the first 1,200
abstracts, the question sets' gold papers, the 38 PDFs), by `{command_of("dev")}`;
and `{shown_path(FULL_INDEX)}`, the full index (every abstract and the 38 PDFs), by
`{command_of("full")}`. A path in angle brackets, such as
`<an index of 3,477 papers>`, is one the reader provides, named by what it holds; the
run's notes, or the page about it, say how it was made.

The benchmarks over an index run over the full index unless `--data-dir` names another:
those figures are the ones that stand for the product. The development index is the quick
loop (`--data-dir {shown_path(DEV_INDEX)}`), for trying a change in minutes; its figures
are a first look, not the product's. Each run says which index it ran over, in the heading
above its tables ("Full index, 74,766 papers", "Development index (quick loop), 1,533
papers"); runs over one index are compared only with runs over the same index.
"""


class ResultError(Exception):
    """A result file that cannot be read."""


@dataclass(frozen=True)
class Run:
    name: str  # the file's name
    data: dict[str, Any]

    @property
    def benchmark(self) -> str:
        return str(self.data["benchmark"])

    @property
    def setup(self) -> str:
        return _named_setup(str(self.data.get("setup") or ""), str(self.data.get("command", "")))

    @property
    def when(self) -> datetime:
        """The run's date; a date without a time counts as its midnight, UTC."""
        moment = datetime.fromisoformat(str(self.data["date"]))
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

    @property
    def tables(self) -> list[Table]:
        return [Table.from_json(t) for t in self.data.get("tables", [])]

    def label(self) -> str:
        commit = str(self.data.get("commit") or "")[:7] or "no commit"
        return f"{commit}, {self.when.date().isoformat()}"


def _named_setup(setup: str, command: str) -> str:
    """A setup recorded as "Index of N papers" before results said which index they ran
    over, named by the index its command's `--data-dir` names (as results name it now), so
    that its runs are compared with later runs over the same index."""
    match = _INDEX_OF.match(setup)
    if match is None:
        return setup
    words = shlex.split(command)
    given = {f"{a}={b}" for a, b in pairwise(words) if a == "--data-dir"}
    given |= {w for w in words if w.startswith("--data-dir=")}
    for name, home in HOMES.items():
        if f"--data-dir={shown_path(home)}" in given:
            title = TITLES[name]
            return f"{title[:1].upper()}{title[1:]}, {match['papers']}{setup[match.end() :]}"
    return setup


def load_runs(folder: Path) -> list[Run]:
    runs = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            run = Run(path.name, data)
            run.when  # noqa: B018  # a date that does not parse fails here, naming the file
        except (json.JSONDecodeError, KeyError, ValueError, TypeError) as e:
            raise ResultError(f"cannot read result {str(path)!r}: {e}") from e
        runs.append(run)
    return runs


def series(runs: Iterable[Run]) -> dict[str, dict[str, list[Run]]]:
    """{benchmark: {setup: runs, latest first}}; benchmarks by name, setups by latest run."""
    grouped: dict[str, dict[str, list[Run]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        grouped[run.benchmark][run.setup].append(run)
    ordered: dict[str, dict[str, list[Run]]] = {}
    for benchmark in sorted(grouped):
        by_setup = {
            setup: sorted(found, key=lambda r: (r.when, r.name), reverse=True)
            for setup, found in grouped[benchmark].items()
        }
        ordered[benchmark] = dict(
            sorted(by_setup.items(), key=lambda item: (-item[1][0].when.timestamp(), item[0]))
        )
    return ordered


def render(runs: Sequence[Run]) -> str:
    grouped = series(runs)
    lines = [HEADER]
    for benchmark, by_setup in grouped.items():
        latest = next(iter(by_setup.values()))[0]
        lines.append(f"- [{benchmark}](#{benchmark}): {latest.data.get('description', '')}")
    for benchmark, by_setup in grouped.items():
        latest = next(iter(by_setup.values()))[0]
        lines += ["", f"## {benchmark}", "", str(latest.data.get("description", ""))]
        for setup, found in by_setup.items():
            lines += ["", f"### {setup or 'Runs'}", ""]
            lines += _section(found[0], found[1] if len(found) > 1 else None)
    return "\n".join(lines).rstrip() + "\n"


def _section(now: Run, before: Run | None) -> list[str]:
    runs = [now, *([before] if before else [])]
    heads = ["", f"now ({now.label()})"] + ([f"previous ({before.label()})"] if before else [])
    lines = ["| " + " | ".join(heads) + " |", "|---" * len(heads) + "|"]
    for name, show in (
        ("command", lambda r: f"`{r.data.get('command', '')}`"),
        ("date", lambda r: str(r.data.get("date", ""))),
        ("machine", lambda r: _machine(r.data.get("machine") or {})),
        ("tree", _tree),
        ("source", _source),
        ("notes", lambda r: str(r.data.get("notes") or "-")),
    ):
        lines.append(f"| {name} | " + " | ".join(_escape(show(r)) for r in runs) + " |")
    earlier = {t.title: t for t in before.tables} if before else {}
    for table in now.tables:
        lines += ["", f"#### {table.title}", ""]
        lines += _table(table, earlier.get(table.title))
    left_out = [title for title in earlier if title not in {t.title for t in now.tables}]
    if left_out:
        lines += ["", "Tables of the previous run only: " + ", ".join(left_out) + "."]
    return lines


def _machine(machine: dict[str, Any]) -> str:
    parts = []
    if machine.get("cores"):
        parts.append(f"{machine['cores']} cores")
    if machine.get("memory_gb"):
        parts.append(f"{machine['memory_gb']:g} GB")
    parts += [str(machine[key]) for key in ("cpu",) if machine.get(key)]
    if machine.get("python"):
        parts.append(f"Python {machine['python']}")
    if machine.get("load_average"):
        parts.append(f"load {' / '.join(f'{v:g}' for v in machine['load_average'])} at the end")
    return ", ".join(parts) or "-"


def _tree(run: Run) -> str:
    if not run.data.get("commit"):
        return "-"
    commit = str(run.data["commit"])[:7]
    if run.data.get("dirty") is None:
        return f"{commit}; uncommitted changes not recorded"
    changed = run.data.get("changed_files") or []
    if not run.data.get("dirty"):
        return f"{commit}, no uncommitted changes"
    # Counted, not named: files named then may since have moved (the result file lists them).
    files = f"{len(changed)} file{'s' if len(changed) != 1 else ''}" if changed else "tracked files"
    return f"{commit} with uncommitted changes to {files}"


def _source(run: Run) -> str:
    recorded = run.data.get("recorded_from")
    return f"recorded from {recorded}, not re-run" if recorded else "run by the benchmark"


def _table(now: Table, before: Table | None) -> list[str]:
    """`now` as markdown, each figure beside the previous one where that differs."""
    if now.key_columns == 0:  # figures of one line: one per row
        return _transposed(now, before)
    lines = ["| " + " | ".join(now.columns) + " |", "|---" * len(now.columns) + "|"]
    names = now.columns[: now.key_columns]
    for row, previous in _aligned(now, before):
        named = row if row is not None else previous or {}
        cells = [_escape(format_cell(named.get(c), now.formats.get(c, ""))) for c in names]
        for column in now.columns[now.key_columns :]:
            value = row.get(column) if row is not None else None
            cells.append(_cell(now, column, value, previous, before))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


Row = dict[str, Cell]


def _aligned(now: Table, before: Table | None) -> list[tuple[Row | None, Row | None]]:
    """(row now, row before) for every row of either run: the latest run's rows in their
    order, a row only the previous run gave after the row it followed there."""
    ours, theirs = _keyed(now), _keyed(before) if before else {}
    order = list(ours)
    at = 0  # where a row only the previous run gave goes: after the one it followed there
    for key in theirs:
        if key not in ours:
            order.insert(at, key)
        at = order.index(key) + 1
    return [(ours.get(key), theirs.get(key)) for key in order]


def _transposed(now: Table, before: Table | None) -> list[str]:
    row = now.rows[0]
    previous = before.rows[0] if before and len(before.rows) == 1 else None
    lines = ["| figure | value |", "|---|---|"]
    for column in now.columns:
        lines.append(
            f"| {_escape(column)} | {_cell(now, column, row.get(column), previous, before)} |"
        )
    return lines


def _keyed(table: Table) -> dict[tuple[tuple[str, ...], int], dict[str, Cell]]:
    """Rows by the cells that name them (and their occurrence, should two rows share them)."""
    keyed: dict[tuple[tuple[str, ...], int], dict[str, Cell]] = {}
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for row in table.rows:
        key = table.key(row)
        keyed[(key, counts[key])] = row
        counts[key] += 1
    return keyed


def _cell(
    now: Table, column: str, value: Cell, previous: dict[str, Cell] | None, before: Table | None
) -> str:
    shown = format_cell(value, now.formats.get(column, ""))
    if previous is None or before is None or column not in before.columns:
        return _escape(shown)
    earlier = format_cell(previous.get(column), before.formats.get(column, ""))
    return _escape(shown if earlier == shown else f"{shown} ({earlier})")


def format_cell(value: Cell, spec: str) -> str:
    """A cell as the benchmark printed it: numbers by `spec`, a pair as "a / b"."""
    if isinstance(value, list | tuple):
        return " / ".join(format_cell(v, spec) for v in value)
    if value is None:
        return "-"
    if isinstance(value, bool | str):
        return str(value)
    if spec:
        return format(value, spec)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _escape(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--out", type=Path, default=PAGE)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if stale")
    args = parser.parse_args()
    try:
        page = render(load_runs(args.results))
    except ResultError as e:
        sys.exit(str(e))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != page:
            sys.exit(f"{args.out} is not what {args.results} makes: run python -m bench.report")
        return
    args.out.write_text(page, encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
