"""Ingest through the queue with one worker, then with two, in one run on this machine.

Each round starts from nothing: a PostgreSQL cluster of its own (catalog and
queue), a `chroma run` server, the same abstracts queued in batches of 50,
then N `paperchat worker` processes with data dirs of their own, timed from
the first worker's start to the last job done. The ratio says what a second
worker buys on this machine; on two cores both workers' embedders share the
same two cores, so little is expected here: the figure to read for more
machines is a worker's rate alone, which adds per machine.
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

from bench import results
from ingest.jobs.queue import counts, open_queue
from tests.cluster.services import Shared, Worker, chroma, postgres, redis
from tests.support.data import ABSTRACTS
from tests.support.running.cli import run

ROOT = Path(__file__).resolve().parents[2]
BATCH = 50


def measure(workers: int, abstracts: Path, jobs: int, models: Path) -> float:
    """Seconds for `workers` workers to ingest every queued batch, from nothing."""
    with tempfile.TemporaryDirectory(prefix="paperchat-workers-") as scratch:
        root = Path(scratch)
        with postgres() as server, chroma(root) as chroma_url, redis(root) as redis_url:
            database_url = server.url
            shared = Shared(database_url, chroma_url, redis_url, models)
            env = shared.env(root / "queue")
            queued = run(env, "jobs", "enqueue", "abstracts", str(abstracts), "--batch",
                         str(BATCH), "--json")  # fmt: skip
            if queued.code != 0:
                raise RuntimeError(queued.stderr)
            running = [Worker(f"w{n}", shared, root) for n in range(workers)]
            queue = open_queue(database_url)
            start = time.monotonic()
            try:
                for worker in running:
                    worker.start()
                with queue.open():
                    while counts(queue)["succeeded"] < jobs:
                        if counts(queue)["failed"]:
                            raise RuntimeError(running[0].text())
                        time.sleep(0.5)
                return time.monotonic() - start
            finally:
                for worker in running:
                    worker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--abstracts", type=int, default=1000, help="abstracts queued")
    parser.add_argument("--models", type=Path, default=ROOT / ".cache" / "models")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paperchat-abstracts-") as scratch:
        path = Path(scratch) / "abstracts.jsonl"
        with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as source:
            path.write_text("".join(next(source) for _ in range(args.abstracts)), "utf-8")
        jobs = -(-args.abstracts // BATCH)
        seconds = {n: measure(n, path, jobs, args.models) for n in (1, 2)}
    rows: list[list[results.Cell]] = [
        [f"{n} worker{'s' if n > 1 else ''}", s, args.abstracts / s, seconds[1] / s]
        for n, s in seconds.items()
    ]
    table = results.table(
        f"Ingest of {args.abstracts:,} abstracts through the queue, batches of {BATCH}",
        ["workers", "seconds", "abstracts/s", "speed-up"],
        rows,
        {"seconds": ".1f", "abstracts/s": ".1f", "speed-up": ".2f"},
    )
    print("| workers | seconds | abstracts/s | speed-up |")
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {row[0]} | {row[1]:.1f} | {row[2]:.1f} | {row[3]:.2f} |")
    results.record(
        "workers",
        [table],
        about=__doc__,
        settings={"abstracts": args.abstracts, "batch": BATCH},
        setup=f"{args.abstracts:,} abstracts from an empty catalog, PostgreSQL and Chroma server",
    )


if __name__ == "__main__":
    main()
