"""Build the indexes the benchmarks run over, from the shared data, where their commands name them.

The development index (`.cache/dev-index`): the first 1,200 records of the
abstracts file, then the gold papers of the abstract and hard question sets
that are not among them (the same records, from the same file), then the 38
PDFs: about 1,500 papers. The full index (`.cache/full-index`: every record
of the abstracts file, then the PDFs, with the shared data's vectors of its
chunks) is built by `python -m bench.full_index`, which times it. Each step is
the product's own `paperchat ingest` command, so the index is the one a user
would build. The folder built is marked, so that
a benchmark run over it elsewhere (`--data-dir` another folder) records the
command with the index where this builds it.

    python -m bench.dev_index
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
ABSTRACTS = DATA / "arxiv" / "abstracts.jsonl.gz"
SHARED_VECTORS = DATA / "embeddings" / "minilm-l6-v2-chunks.npz"
GOLD_FILES = ("questions-abstracts.jsonl", "questions-hard.jsonl")
FIRST = 1200
# Where each index is built unless --data-dir names another folder: in the checkout (in
# .cache/, which git ignores), so that a command on docs/benchmarks.md reads as typed there.
DEV_INDEX = ROOT / ".cache" / "dev-index"
FULL_INDEX = ROOT / ".cache" / "full-index"
HOMES = {"dev": DEV_INDEX, "full": FULL_INDEX}
# The file in a built index that says which index it is.
MARK = "bench-index.json"
# What a benchmark's results call each index: the full index is the default, the development
# index the quick loop (`--data-dir .cache/dev-index`).
TITLES = {"full": "full index", "dev": "development index (quick loop)"}


def gold_ids() -> set[str]:
    """The papers the abstract and hard question sets are answered from."""
    ids: set[str] = set()
    for name in GOLD_FILES:
        for line in (DATA / "eval" / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and (gold := json.loads(line).get("gold_id")):
                ids.add(gold)
    return ids


def gold_records(skip_first: int) -> list[str]:
    """The lines of the abstracts file past its first `skip_first` that hold a gold paper."""
    wanted = gold_ids()
    found: list[str] = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number >= skip_first and json.loads(line)["id"] in wanted:
                found.append(line)
    return found


def ingest(*args: str, environment: dict[str, str] | None = None) -> None:
    subprocess.run([sys.executable, "-m", "chat.cli", "ingest", *args], check=True, env=environment)


def mark(data_dir: Path, name: str) -> None:
    """Say in `data_dir` that it holds the index `name` of HOMES."""
    built = {"index": name, "command": command_of(name)}
    (data_dir / MARK).write_text(json.dumps(built) + "\n", encoding="utf-8")


def built_index(data_dir: Path) -> str | None:
    """The name of the index of HOMES this module built in `data_dir`, if it did."""
    try:
        name = json.loads((data_dir / MARK).read_text(encoding="utf-8")).get("index")
    except (OSError, ValueError, AttributeError):
        return None
    return name if name in HOMES else None


def command_of(name: str) -> str:
    """The command that builds the index `name` in its home."""
    return "python -m bench.full_index" if name == "full" else "python -m bench.dev_index"


def index_title(data_dir: Path, papers: int) -> str:
    """What an index a benchmark ran over is, for its results: "full index, 74,766 papers",
    "development index (quick loop), 1,533 papers", or another "index of 3,477 papers"."""
    name = built_index(data_dir)
    return f"{TITLES[name] if name else 'index of'}{',' if name else ''} {papers:,} papers"


def data_dir_option(parser: argparse.ArgumentParser) -> None:
    """`--data-dir`: the index a benchmark runs over, the full index unless it names another
    (`.cache/dev-index`, the development index, for the quick loop)."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=FULL_INDEX,
        help="An index's data dir (default: the full index, .cache/full-index; "
        ".cache/dev-index for the quick loop).",
    )


def index_at(data_dir: Path) -> Path:
    """`data_dir`, when it holds an index; else the benchmark stops saying how to build it."""
    from chat.settings import Settings

    settings = Settings(data_dir=data_dir)
    if settings.shared_catalog or settings.catalog_path.is_file():
        return data_dir
    home = next((name for name, path in HOMES.items() if path == data_dir.absolute()), None)
    build = f"build it with `{command_of(home)}`" if home else "name an index's data dir"
    raise SystemExit(
        f"no index in {str(data_dir)!r}: {build}, or run over the development index "
        f"(the quick loop) with --data-dir .cache/dev-index"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEV_INDEX)
    args = parser.parse_args()
    where = str(args.data_dir)
    ingest("abstracts", str(ABSTRACTS), "--limit", str(FIRST), "--data-dir", where)
    with tempfile.TemporaryDirectory() as folder:
        gold = Path(folder) / "gold.jsonl"
        gold.write_text("".join(gold_records(FIRST)), encoding="utf-8")
        ingest("abstracts", str(gold), "--data-dir", where)
    ingest("pdfs", str(DATA / "pdfs"), "--data-dir", where)
    mark(args.data_dir, "dev")


if __name__ == "__main__":
    main()
