"""The author index: how long an old catalog takes to get it, and resolving names over it.

Makes a catalog of the papers of a metadata file (no chunks, no embedding: the author
index reads only the papers), builds its author index again as an old catalog would on
first opening, then resolves each name and lists its papers, best of three runs.

    python -m bench.quality.authors [--abstracts FILE] [--name "Yang Liu"]...
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from bench import results
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.sources.metadata import read_metadata

ROOT = Path(__file__).resolve().parents[2]
ABSTRACTS = ROOT.parent / "shared" / "data" / "arxiv" / "abstracts.jsonl.gz"
NAMES = ("Christopher D. Manning", "C. Manning", "Vishal M. Patel", "Wei Wang", "Yang Liu")
RUNS = 3


def fill(catalog: Catalog, abstracts: Path) -> int:
    papers = 0
    with catalog.transaction():
        for paper in read_metadata(abstracts):
            if isinstance(paper, Paper):
                catalog.replace_unit(paper, "metadata", "abstract", "-", [])
                papers += 1
    return papers


def reindex_seconds(path: Path) -> float:
    """Opening the catalog with its author index dropped, as one made before it."""
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'author_index'")
    db.execute("DELETE FROM paper_authors")
    db.commit()
    db.close()
    started = time.perf_counter()
    Catalog(path).close()
    return time.perf_counter() - started


def timed(catalog: Catalog, name: str) -> tuple[int, float, float]:
    """(papers, ms to resolve, ms to list the papers), best of `RUNS`."""
    best_resolve = best_list = float("inf")
    papers = 0
    for _ in range(RUNS):
        started = time.perf_counter()
        person = catalog.person(name)
        resolved = time.perf_counter()
        papers = len(catalog.papers_of(person)) if person is not None else 0
        listed = time.perf_counter()
        best_resolve = min(best_resolve, (resolved - started) * 1000)
        best_list = min(best_list, (listed - resolved) * 1000)
    return papers, best_resolve, best_list


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=Path, default=ABSTRACTS)
    parser.add_argument("--name", action="append", dest="names", help="repeatable")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "catalog.sqlite"
        catalog = Catalog(path)
        papers = fill(catalog, args.abstracts)
        rows = catalog.db.execute("SELECT COUNT(*) FROM paper_authors").fetchone()[0]
        catalog.close()
        seconds = reindex_seconds(path)
        catalog = Catalog(path)
        print(f"{papers} papers, {rows} author names; author index built in {seconds:.1f} s")
        print("| name | papers | resolve | list papers |\n|---|---|---|---|")
        timings: list[list[results.Cell]] = []
        for name in args.names or NAMES:
            found, resolve_ms, list_ms = timed(catalog, name)
            print(f"| `{name}` | {found} | {resolve_ms:.1f} ms | {list_ms:.1f} ms |")
            timings.append([name, found, resolve_ms, list_ms])
        catalog.close()
    sys.stdout.flush()
    built = {"papers": papers, "author names": rows, "author index built s": seconds}
    columns = ["name", "papers", f"resolve ms (best of {RUNS})", f"list papers ms (best of {RUNS})"]
    results.record(
        "authors",
        [
            results.figures("the author index", built, {"author index built s": ".1f"}),
            results.table("resolving names", columns, timings, dict.fromkeys(columns[2:], ".1f")),
        ],
        about=__doc__,
        settings=vars(args),
        setup=f"{papers:,} papers of {results.shown_path(args.abstracts)}",
    )


if __name__ == "__main__":
    main()
