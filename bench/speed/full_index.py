"""The full index built from the shared data: every abstract, then the 38 PDFs, timed.

Each step is the product's own `paperchat ingest` command, given the shared data's
vectors of every chunk (`--embeddings ../shared/data/embeddings/minilm-l6-v2-chunks.npz`)
so that only a text the cache lacks is embedded. Run again on the same folder, it
refreshes the index: the unchanged papers are skipped, and that run is timed too.
The folder is marked as the full index, so that a benchmark run over it records its
command with the index where this builds it (`.cache/full-index`).

    python -m bench.full_index [--data-dir .cache/full-index] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import dev_index, results

GOAL_S = 15 * 60.0


def ingest(
    step: str, source: Path, data_dir: Path, limit: int | None
) -> tuple[float, dict[str, Any]]:
    """Run `paperchat ingest <step> <source>` with the shared vectors; (seconds, its report)."""
    command = [sys.executable, "-m", "chat.cli", "ingest", step, str(source)]
    command += ["--data-dir", str(data_dir), "--json"]
    if dev_index.SHARED_VECTORS.is_file():
        command += ["--embeddings", str(dev_index.SHARED_VECTORS)]
    if limit is not None and step == "abstracts":
        command += ["--limit", str(limit)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: done, with some items skipped
        raise SystemExit(f"ingest {step} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout or "{}")


def build(data_dir: Path, limit: int | None = None) -> list[tuple[str, float, dict[str, Any]]]:
    """Ingest the abstracts, then the PDFs, into `data_dir`; each step's name, seconds and
    report. The folder is marked as the full index when every abstract went in."""
    steps = [
        ("abstracts", *ingest("abstracts", dev_index.ABSTRACTS, data_dir, limit)),
        ("pdfs", *ingest("pdfs", dev_index.DATA / "pdfs", data_dir, limit)),
    ]
    if limit is None:
        dev_index.mark(data_dir, "full")
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=dev_index.FULL_INDEX)
    parser.add_argument("--limit", type=int, default=None, help="abstracts at most (a trial run)")
    args = parser.parse_args()
    fresh = not (args.data_dir / "catalog.sqlite").exists()
    steps = build(args.data_dir, args.limit)
    stats = results.index_stats(args.data_dir / "catalog.sqlite")
    total = sum(seconds for _, seconds, _ in steps)
    run = "build" if fresh else "refresh"
    rows = [
        [f"{run}: {name}", seconds, report.get("added_papers", 0), report.get("chunks_added", 0)]
        for name, seconds, report in steps
    ]
    rows.append([f"{run}: total", total, stats.get("papers", 0), stats.get("chunks", 0)])
    table = results.table(
        f"The full index from the shared data and its vectors ({run}; goal: within "
        f"{GOAL_S / 60:g} minutes)",
        ["step", "seconds", "papers", "chunks"],
        rows,
        {"seconds": ".0f"},
    )
    for row in rows:
        print(f"{row[0]:<20} {row[1]:8.0f} s  {row[2]:>7,} papers  {row[3]:>8,} chunks")
    results.record(
        "full_index",
        [table],
        about=__doc__,
        settings=vars(args),
        setup=f"{results.index_setup(stats)}, {'built from nothing' if fresh else 'refreshed'}",
    )


if __name__ == "__main__":
    main()
