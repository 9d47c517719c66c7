"""Ingest speed and memory: PDF parsing, end to end, and the embedder alone, in one run.

For each embedder backend, into a fresh data dir: parse the PDFs alone
(pages/s), ingest the abstracts and the PDFs end to end (chunks/s), then embed
the very same chunk texts with the embedder alone (chunks/s), and report the
ratio of the two and the peak memory of the process and its PDF workers.

    python -m bench.speed.ingest --abstracts 5000 --backend onnx --backend torch

With `--server-concurrency N` (repeatable) it measures instead the ingest of
the abstracts through an embeddings server (`PAPERCHAT_EMBEDDINGS=openai`):
a fake OpenAI-compatible server on 127.0.0.1 that takes `--server-delay-ms`
per batch, as a GPU server would, at each `PAPERCHAT_EMBEDDINGS_CONCURRENCY`.

    python -m bench.speed.ingest --abstracts 2000 --server-concurrency 1 --server-concurrency 4
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from bench import results
from ingest.pdf.isolation import Failure, run_isolated
from ingest.pdf.parsing import parse_pdf
from ingest.sources.units import find_pdfs

if TYPE_CHECKING:
    from chat.wiring import Wiring

# PDF workers start by importing the main module: the heavy imports (Chroma,
# onnxruntime) stay inside the functions so that the workers do not pay for them.

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
EMBED_BATCH = 256


class PeakMemory:
    """Samples the resident memory of this process and its descendants, keeps the peak.

    Finding the descendants scans every process on the machine, so the list is
    refreshed only every `refresh_s`; the PDF workers live for a whole phase.
    """

    def __init__(self, interval_s: float = 0.2, refresh_s: float = 2.0) -> None:
        self.peak = 0
        self._interval = interval_s
        self._refresh = refresh_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        children: list[psutil.Process] = []
        refreshed = 0.0
        while not self._stop.is_set():
            if time.monotonic() - refreshed >= self._refresh:
                children, refreshed = me.children(recursive=True), time.monotonic()
            total = me.memory_info().rss
            for child in children:
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            self._stop.wait(self._interval)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Row:
    backend: str
    pages: int
    parse_s: float
    chunks: int
    end_to_end_s: float
    embed_only_s: float
    peak_mb: float

    @property
    def ratio(self) -> float:
        return (self.chunks / self.end_to_end_s) / (self.chunks / self.embed_only_s)


def parse_only(pdfs: Path) -> tuple[int, float]:
    files, _ = find_pdfs([pdfs])
    start = time.perf_counter()
    pages = 0
    for _, outcome in run_isolated(parse_pdf, [str(f) for f in files], workers=1, timeout_s=300):
        if not isinstance(outcome, Failure):
            pages += outcome.page_count
    return pages, time.perf_counter() - start


def end_to_end(index: Wiring, abstracts: Path, limit: int, pdfs: Path) -> tuple[int, float]:
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items, pdf_items

    embedder = index.embedder
    embedder.embed(["warm up the model"])
    report = IngestReport()
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    start = time.perf_counter()
    pipeline.run(metadata_items(abstracts, embedder.count_tokens, limit), report)
    items = pdf_items([pdfs], index.open_catalog(), embedder.count_tokens, workers=1)
    pipeline.run(items, report)
    elapsed = time.perf_counter() - start
    split = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in pipeline.seconds.items())
    print(f"end to end {elapsed:.0f} s, of which {split}", file=sys.stderr)
    return report.chunks_added, elapsed


def embed_only(index: Wiring) -> float:
    """The embedder alone on the texts just ingested, in the pipeline's batch size."""
    texts = [row[0] for row in index.catalog.db.execute("SELECT text FROM chunks ORDER BY rowid")]
    start = time.perf_counter()
    for first in range(0, len(texts), EMBED_BATCH):
        index.embedder.embed(texts[first : first + EMBED_BATCH])
    return time.perf_counter() - start


def measure(backend: str, args: argparse.Namespace) -> Row:
    from chat.settings import Settings
    from chat.wiring import Wiring

    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as data_dir:
        settings = Settings(
            data_dir=Path(data_dir), embedder_backend=backend, models_cache=args.models_cache
        )
        index = Wiring(settings)
        # Sampling runs through both phases that the ratio compares, so both bear its cost.
        with PeakMemory() as memory:
            pages, parse_s = parse_only(args.pdfs)
            chunks, e2e_s = end_to_end(index, args.abstracts_file, args.abstracts, args.pdfs)
            embed_s = embed_only(index)
        index.close()
    return Row(backend, pages, parse_s, chunks, e2e_s, embed_s, memory.peak / 2**20)


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    print(f"command: {results.command('ingest')}")
    print(f"corpus: {args.abstracts} abstracts + the PDFs in {args.pdfs}; cores: {os.cpu_count()}")
    print()
    print(
        "| embedder | PDF pages/s parsed | chunks | end to end chunks/s "
        "| embedder alone chunks/s | ratio | peak memory |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.backend} | {r.pages / r.parse_s:.0f} ({r.pages} pages) | {r.chunks} "
            f"| {r.chunks / r.end_to_end_s:.1f} | {r.chunks / r.embed_only_s:.1f} "
            f"| {r.ratio:.2f} | {r.peak_mb:,.0f} MB |"
        )


@dataclass
class ServerRow:
    concurrency: int
    chunks: int
    seconds: float
    requests: int
    embed_only_s: float


def through_server(concurrency: int, args: argparse.Namespace) -> ServerRow:
    """Ingest the abstracts with a fake embeddings server that takes `delay` per batch."""
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items
    from tests.fakes.base import Reply, Request
    from tests.fakes.openai import FakeOpenAI

    # Small vectors: the fake server and the client spend their CPU on JSON, not on the wait.
    with FakeOpenAI(dimension=32) as server, tempfile.TemporaryDirectory() as data_dir:
        answer = server.routes[("POST", "/v1/embeddings")]

        def slow(request: Request, reply: Reply) -> None:
            time.sleep(args.server_delay_ms / 1000)
            answer(request, reply)

        server.routes[("POST", "/v1/embeddings")] = slow
        settings = Settings(
            data_dir=Path(data_dir),
            embeddings="openai",
            embeddings_url=server.base_url,
            embeddings_concurrency=concurrency,
        )
        index = Wiring(settings)
        embedder = index.embedder
        report = IngestReport()
        pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
        start = time.perf_counter()
        pipeline.run(
            metadata_items(args.abstracts_file, embedder.count_tokens, args.abstracts), report
        )
        elapsed = time.perf_counter() - start
        requests = sum(r.path == "/v1/embeddings" for r in server.requests)
        embed_s = embed_only(index)
        index.close()
    return ServerRow(concurrency, report.chunks_added, elapsed, requests, embed_s)


def print_server_table(rows: list[ServerRow], args: argparse.Namespace) -> None:
    print(f"command: {results.command('ingest')}")
    print(
        f"corpus: {args.abstracts} abstracts; embeddings server: {args.server_delay_ms} ms a "
        f"batch of 32; cores: {os.cpu_count()}"
    )
    print()
    print(
        "| concurrency | chunks | requests | embedder alone chunks/s | vs one at a time "
        "| end to end chunks/s | vs one at a time |"
    )
    print("|---|---|---|---|---|---|---|")
    first_alone = rows[0].chunks / rows[0].embed_only_s
    first = rows[0].chunks / rows[0].seconds
    for r in rows:
        alone, rate = r.chunks / r.embed_only_s, r.chunks / r.seconds
        print(
            f"| {r.concurrency} | {r.chunks} | {r.requests} | {alone:.0f} "
            f"| {alone / first_alone:.2f}x | {rate:.0f} | {rate / first:.2f}x |"
        )


def result_table(rows: list[Row]) -> results.Table:
    columns = ["embedder", "PDF pages/s parsed", "pages", "chunks", "end to end chunks/s",
               "embedder alone chunks/s", "ratio", "peak memory MB"]  # fmt: skip
    formats = {
        "PDF pages/s parsed": ".0f",
        "end to end chunks/s": ".1f",
        "embedder alone chunks/s": ".1f",
        "ratio": ".2f",
        "peak memory MB": ",.0f",
    }
    cells: list[list[results.Cell]] = [
        [r.backend, r.pages / r.parse_s, r.pages, r.chunks, r.chunks / r.end_to_end_s,
         r.chunks / r.embed_only_s, r.ratio, r.peak_mb]
        for r in rows
    ]  # fmt: skip
    return results.table("ingest speed and memory", columns, cells, formats)


def server_table(rows: list[ServerRow]) -> results.Table:
    columns = ["concurrency", "chunks", "requests", "embedder alone chunks/s",
               "embedder alone vs one at a time", "end to end chunks/s",
               "end to end vs one at a time"]  # fmt: skip
    formats = {
        "embedder alone chunks/s": ".0f",
        "embedder alone vs one at a time": ".2f",
        "end to end chunks/s": ".0f",
        "end to end vs one at a time": ".2f",
    }
    first_alone = rows[0].chunks / rows[0].embed_only_s
    first = rows[0].chunks / rows[0].seconds
    cells: list[list[results.Cell]] = []
    for r in rows:
        alone, rate = r.chunks / r.embed_only_s, r.chunks / r.seconds
        cells.append([r.concurrency, r.chunks, r.requests, alone, alone / first_alone, rate,
                      rate / first])  # fmt: skip
    return results.table("through an embeddings server", columns, cells, formats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--abstracts", type=int, default=5000)
    parser.add_argument(
        "--abstracts-file", type=Path, default=SHARED / "arxiv" / "abstracts.jsonl.gz"
    )
    parser.add_argument("--pdfs", type=Path, default=SHARED / "pdfs")
    parser.add_argument("--backend", action="append", choices=["onnx", "torch", "onnx-fp32"])
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--server-concurrency", type=int, action="append")
    parser.add_argument("--server-delay-ms", type=float, default=50.0)
    args = parser.parse_args()
    if args.server_concurrency:
        served = [through_server(c, args) for c in args.server_concurrency]
        print_server_table(served, args)
        setup = f"{args.abstracts:,} abstracts through an embeddings server"
        setup += f" taking {args.server_delay_ms:g} ms a batch"
        table = server_table(served)
        results.record("ingest", [table], about=__doc__, settings=vars(args), setup=setup)
        return
    rows = [measure(backend, args) for backend in args.backend or ["onnx"]]
    print_table(rows, args)
    setup = f"{args.abstracts:,} abstracts and the PDFs of {results.shown_path(args.pdfs)}"
    results.record("ingest", [result_table(rows)], about=__doc__, settings=vars(args), setup=setup)


if __name__ == "__main__":
    main()
