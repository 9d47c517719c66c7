"""Vector search opened in the process against through the Chroma server a serve runs on it.

`paperchat serve` holds an embedded vector store and runs it as `chroma run` on a loopback
port, so every search of the server's (and of the commands beside it) is an HTTP round
trip; before, each process opened the directory itself. This measures what the hop costs:
the same searches (the 100 nearest chunks of a chunk's own vector, as retrieval asks) run
in turn over the store opened in this process and through its server, rounds alternating,
with the wall time per search (p50 / p99) and the CPU it took, this process's and the
server's, per search. It also times what a serve adds at start: the server's start and
the check of the store against the catalog.

    python -m bench.speed.vector_store --data-dir .cache/full-index --n 300 --rounds 3

The whole library's index builds in about five minutes with the shared vectors:

    python -m bench.full_index
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import psutil

from bench import results
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.vectors.check import check
from ingest.index.vectors.owner import claim
from ingest.index.vectors.server import serving_directory
from ingest.index.vectors.store import ChunkStore, open_chroma

K = 100


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="a built data dir")
    parser.add_argument("--n", type=int, default=300, help="searches a round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    path = args.data_dir / "chroma"
    catalog = Catalog(args.data_dir / "catalog.sqlite")
    ids = list(catalog.sample_chunks(args.n))
    chunks = catalog.chunk_count()
    timings: dict[str, list[list[float]]] = {"in this process": [], "through its server": []}
    starts: list[list[float]] = []
    queries: np.ndarray | None = None
    for _ in range(args.rounds):
        with serving_directory(path, args.data_dir / "logs" / "bench-chroma.log") as server:
            begun = time.perf_counter()
            report = check(open_chroma(path), catalog)
            checked = time.perf_counter() - begun
            store = ChunkStore(open_chroma(path), None)
            if queries is None:
                found = store.vectors(ids)
                queries = np.stack([found[i] for i in ids if i in found])
            child = psutil.Process(server.pid)
            timings["through its server"].append(_searches(store, queries, child))
            starts.append([server.started_s, checked])
            assert not report.findings, report.findings
        mine = claim(path)
        store = ChunkStore(open_chroma(path), None)
        timings["in this process"].append(_searches(store, queries, None))
        _close_embedded()
        mine.release()
    catalog.close()
    assert queries is not None
    columns = ("store", "ms a search p50 / p99", "CPU ms a search (ours + server)")
    formats = {columns[1]: ".2f", columns[2]: ".2f"}
    title = f"{len(queries)} searches of the {K} nearest, {args.rounds} rounds, {chunks:,} chunks"
    table = results.table(title, columns, [_row(m, runs) for m, runs in timings.items()], formats)
    start_s, check_s = (float(np.median([s[i] for s in starts])) for i in (0, 1))
    at_start = results.figures(
        "what serve adds at start (median of rounds)",
        {"the Chroma server answers (s)": start_s, "the store checked (s)": check_s},
        {"the Chroma server answers (s)": ".2f", "the store checked (s)": ".2f"},
    )
    for shown in (table, at_start):
        print(f"\n{shown.title}\n| " + " | ".join(shown.columns) + " |")
        for row in shown.rows:
            print("| " + " | ".join(_cell(row[c]) for c in shown.columns) + " |")
    shown_argv = ["--data-dir", str(args.data_dir), "--n", str(args.n)]
    results.record(
        "vector_store",
        (table, at_start),
        about=__doc__,
        settings={"n": args.n, "rounds": args.rounds, "k": K},
        setup=f"an index of {chunks:,} chunks",
        argv=[*shown_argv, "--rounds", str(args.rounds)],
    )


def _cell(value: results.Cell) -> str:
    if isinstance(value, list | tuple):
        return " / ".join(f"{v:.2f}" for v in value if v is not None)
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _searches(store: ChunkStore, queries: np.ndarray, child: psutil.Process | None) -> list[float]:
    """Per-search wall ms of each query, then the CPU ms per search (ours + the server's)."""
    for vector in queries[:20]:  # warm
        store.search(vector, K, Filters())
    ours = time.process_time()
    theirs = _cpu(child)
    walls = []
    for vector in queries:
        started = time.perf_counter()
        store.search(vector, K, Filters())
        walls.append((time.perf_counter() - started) * 1000)
    cpu = (time.process_time() - ours + _cpu(child) - theirs) * 1000 / len(queries)
    return [*walls, cpu]


def _cpu(process: psutil.Process | None) -> float:
    if process is None:
        return 0.0
    times = process.cpu_times()
    return float(times.user + times.system)


def _row(mode: str, runs: list[list[float]]) -> list[results.Cell]:
    walls = [w for run in runs for w in run[:-1]]
    p50, p99 = (float(np.percentile(walls, q)) for q in (50, 99))
    return [mode, [p50, p99], float(np.median([run[-1] for run in runs]))]


def _close_embedded() -> None:
    """Stop this process's embedded Chroma, so that a server may open the directory."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


if __name__ == "__main__":
    main()
