"""Build the development index the benchmarks' notes name, from the shared data.

The first 1,200 records of the abstracts file, then the gold papers of the
abstract and hard question sets that are not among them (the same records,
from the same file), then the 38 PDFs: about 1,500 papers. Each step is the
product's own `paperchat ingest` command, so the index is the one a user
would build.

    python -m bench.dev_index --data-dir /tmp/paperchat-bench/dev
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
ABSTRACTS = DATA / "arxiv" / "abstracts.jsonl.gz"
GOLD_FILES = ("questions-abstracts.jsonl", "questions-hard.jsonl")
FIRST = 1200


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


def ingest(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "chat.cli", "ingest", *args], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()
    data_dir = str(args.data_dir)
    ingest("abstracts", str(ABSTRACTS), "--limit", str(FIRST), "--data-dir", data_dir)
    with tempfile.TemporaryDirectory() as folder:
        gold = Path(folder) / "gold.jsonl"
        gold.write_text("".join(gold_records(FIRST)), encoding="utf-8")
        ingest("abstracts", str(gold), "--data-dir", data_dir)
    ingest("pdfs", str(DATA / "pdfs"), "--data-dir", data_dir)


if __name__ == "__main__":
    main()
