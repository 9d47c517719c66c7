"""What a hostile client costs the others: a sign-in flood, PDF bombs, 200 open streams and
hammered public routes.

Each row is measured in one run against quiet figures taken just before it:

- **sign-in flood**: `--logins` sign-ins at once from one client, each with a
  new email, against `paperchat serve` (one worker, a fake upstream). While
  it lasts, `/api/health` and a chat stream's first `delta` are timed; the
  ratios are flood over quiet (p95 for health, median for the first delta).
  The answers' status codes are counted (429 from the limits, 503 from the
  queue of password checks, 401 for those checked).
- **PDF bombs**: `paperchat ingest pdfs` over each bomb beside a real PDF,
  in a scratch data dir; the peak memory of the command and its workers, the
  exit code, and whether the bomb was skipped with a reason and the real PDF
  indexed.
- **200 streams**: `bench.speed.serve`'s measure at 1 and at `--streams` streams;
  errors, and the ratio of the added time to the first delta (p99).
- **public routes**: for each route a hostile client may hammer (the Latest feed, a
  paper of thousands of authors as HTML and Markdown, a long search with every filter on
  page 200, the sitemap, a sitemap file past the end, the page of a researcher with those
  thousands as co-authors, a PDF page's annotations), 4 clients ask for it for `--seconds`
  while a reader reads a paper page; the reader's median under that load over its median
  just before
  (`bench/hostile.py`; the goal is at most 2).

    python -m bench.speed.abuse --data-dir /path/to/index

The public routes' rows need a paper of thousands of authors in the index:

    python -m bench.hostile crowd.jsonl --data-dir .cache/full-index
    paperchat ingest abstracts crowd.jsonl --data-dir .cache/full-index
    python -m bench.speed.abuse --data-dir .cache/full-index --skip flood streams pdfs
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench import hostile, results
from bench.load import chat_stream
from bench.servers import ServerOptions, Servers, servers
from bench.speed.serve import EVAL, QUESTION_FILES, answerable_questions, measure
from chat.rag.retrieval.evaluation import percentile
from chat.settings import Settings
from ingest.index.catalog import Catalog
from tests.support.worlds import pdf_fixtures

PDFS = EVAL.parent / "pdfs"
REAL_PDF = PDFS / "1706.03762v7.pdf"
# (name, the piece repeated, how many bytes it inflates to): the two bombs the hostile
# test used, a content stream of text operators and a page of spaces.
BOMBS = (("text operators", b"(ab) Tj ", 300 << 20), ("spaces", b" ", 1 << 30))


@dataclass
class Row:
    name: str
    quiet: float | None
    under_attack: float | None
    unit: str  # "ms", "MB"
    notes: str = ""
    errors: int = 0  # 5xx answers (other than a 503 that asks to retry) or failed streams

    @property
    def ratio(self) -> float | None:
        if self.under_attack is None or self.quiet is None or self.quiet <= 0:
            return None
        return self.under_attack / self.quiet

    def shown(self, value: float | None) -> str:
        return "-" if value is None else f"{value:.0f} {self.unit}"


@dataclass
class Probe:
    """Health times and chat first deltas taken while something else goes on."""

    health_ms: list[float] = field(default_factory=list)
    first_delta_ms: list[float] = field(default_factory=list)
    errors: int = 0


async def _health_times(client: httpx.AsyncClient, count: int, gap_s: float) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        response = await client.get("/api/health")
        if response.status_code == 200:
            times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(gap_s)
    return times


async def probe(servers: Servers, key: str, questions: Sequence[str]) -> Probe:
    """Health every 50 ms (40 times) and three chat streams one after the other, together."""
    result = Probe()
    async with httpx.AsyncClient(base_url=servers.api_url, timeout=120.0) as client:

        async def chats() -> None:
            for question in questions[:3]:
                stream = await chat_stream(client, key, question)
                if stream.error or stream.first_delta_ms is None:
                    result.errors += 1
                else:
                    result.first_delta_ms.append(stream.first_delta_ms)

        health, _ = await asyncio.gather(_health_times(client, 40, 0.05), chats())
    result.health_ms = health
    return result


async def _sign_in(client: httpx.AsyncClient) -> int:
    body = {"email": f"flood-{uuid.uuid4().hex[:12]}@example.org", "password": "not-the-one"}
    try:
        return (await client.post("/api/auth/login", json=body)).status_code
    except httpx.HTTPError:
        return 0


async def sign_in_flood(
    servers: Servers, key: str, questions: Sequence[str], logins: int
) -> tuple[Probe, Probe, Counter[int]]:
    """(quiet probe, probe under the flood, the flood's status codes)."""
    quiet = await probe(servers, key, questions)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=servers.api_url, timeout=120.0, limits=limits) as flood:
        tasks = [asyncio.create_task(_sign_in(flood)) for _ in range(logins)]
        await asyncio.sleep(0.2)
        attacked = await probe(servers, key, questions[3:])
        codes = Counter(await asyncio.gather(*tasks))
    return quiet, attacked, codes


def flood_rows(quiet: Probe, attacked: Probe, codes: Counter[int]) -> list[Row]:
    quiet_health = percentile(quiet.health_ms, 95)
    flood_health = percentile(attacked.health_ms, 95)
    quiet_first = statistics.median(quiet.first_delta_ms) if quiet.first_delta_ms else None
    flood_first = statistics.median(attacked.first_delta_ms) if attacked.first_delta_ms else None
    statuses = ", ".join(f"{code or 'failed'}: {n}" for code, n in sorted(codes.items()))
    server_errors = sum(n for code, n in codes.items() if code >= 500 and code != 503)
    return [
        Row("sign-in flood: health p95", quiet_health, flood_health, "ms", statuses,
            server_errors + codes[0]),
        Row("sign-in flood: first delta", quiet_first, flood_first, "ms",
            "median of 3 chat streams", attacked.errors),
    ]  # fmt: skip


def stream_rows(servers: Servers, keys: list[str], questions: list[str], n: int) -> list[Row]:
    one = asyncio.run(measure(servers, keys, questions, 1))
    many = asyncio.run(measure(servers, keys, questions[20:] + questions[:20], n))
    errors = sum(many.errors.values())
    return [
        Row(f"{n} streams: added to first delta p99", one.added_ms["p99"],
            many.added_ms["p99"], "ms",
            ", ".join(f"{k}: {v}" for k, v in many.errors.items()) or "no errors", errors),
    ]  # fmt: skip


@dataclass(frozen=True)
class IngestRun:
    code: int
    peak_mb: float
    report: dict[str, Any]


def _tree_rss_mb(root: psutil.Process) -> float:
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total / (1 << 20)


def ingest_pdfs(files: Sequence[Path], models_cache: Path | None) -> IngestRun:
    """`paperchat ingest pdfs FILES --json` in a scratch data dir, its memory (the command
    and its parser workers together) sampled every 50 ms."""
    with tempfile.TemporaryDirectory(prefix="bench-abuse-") as scratch:
        env = {**os.environ, "PAPERCHAT_DATA_DIR": scratch, "HF_HUB_OFFLINE": "1"}
        if models_cache is not None:
            env["PAPERCHAT_MODELS_CACHE"] = str(models_cache)
        command = [str(Path(sys.executable).with_name("paperchat")), "ingest", "pdfs"]
        child = subprocess.Popen(
            [*command, *map(str, files), "--json"], env=env, stdout=subprocess.PIPE
        )
        peak = 0.0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            root = psutil.Process(child.pid)
            while not done.wait(0.05):
                peak = max(peak, _tree_rss_mb(root))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out, _ = child.communicate(timeout=900)
        done.set()
        sampler.join()
        report = json.loads(out) if out.strip() else {}
        return IngestRun(child.returncode, peak, report)


def pdf_rows(models_cache: Path | None) -> list[Row]:
    quiet = ingest_pdfs([REAL_PDF], models_cache)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-bombs-") as folder:
        for name, piece, inflated in BOMBS:
            bomb = pdf_fixtures.write_inflating_pdf(Path(folder) / "bomb.pdf", piece, inflated)
            run = ingest_pdfs([bomb, REAL_PDF], models_cache)
            skipped = run.report.get("skipped") or []
            reasons = "; ".join(str(s["reason"]) for s in skipped if isinstance(s, dict))
            indexed = run.report.get("added_papers") == 1
            size_kb = bomb.stat().st_size // 1024
            notes = f"{size_kb} KB file, {inflated >> 20} MB inflated; exit {run.code}; "
            notes += f"skipped: {reasons or 'nothing'}; real PDF indexed: {indexed}"
            errors = 0 if indexed and skipped and run.code == 1 else 1
            rows.append(
                Row(f"PDF bomb ({name}): peak memory", quiet.peak_mb, run.peak_mb, "MB", notes,
                    errors)
            )  # fmt: skip
    return rows


def route_rows(options: ServerOptions, data_dir: Path, seconds: float) -> list[Row]:
    """For each public route a hostile client may hammer: a reader's paper page, quiet and
    under `hostile.ABUSERS` clients of that route (`bench/hostile.py`)."""
    catalog = Catalog(Settings(data_dir=data_dir).catalog_path)
    try:
        found = hostile.target(catalog)
    finally:
        catalog.close()
    with servers(options, 1) as (running, _):
        measured = hostile.measure_all(running.api_url, found, seconds)
    return [
        Row(f"{m.route.name}: a reader's paper page, median", m.quiet_ms, m.attacked_ms, "ms",
            hostile.notes(m), hostile.server_errors(m))
        for m in measured
    ]  # fmt: skip


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| what | quiet | under attack | ratio | errors | notes |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = "-" if r.ratio is None else f"{r.ratio:.1f}x"
        quiet, attacked = r.shown(r.quiet), r.shown(r.under_attack)
        lines.append(f"| {r.name} | {quiet} | {attacked} | {ratio} | {r.errors} | {r.notes} |")
    return "\n".join(lines)


def result_table(rows: Sequence[Row]) -> results.Table:
    columns = ["what", "unit", "quiet", "under attack", "ratio", "errors", "notes"]
    cells: list[list[results.Cell]] = [
        [r.name, r.unit, r.quiet, r.under_attack, r.ratio, r.errors, r.notes] for r in rows
    ]
    formats = {"quiet": ".0f", "under attack": ".0f", "ratio": ".1f"}
    return results.table("each row against quiet figures of the same run", columns, cells, formats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="An index to serve.")
    parser.add_argument("--models-cache", type=Path, help="Default: the data dir's models/.")
    parser.add_argument("--logins", type=int, default=200, help="sign-ins in the flood")
    parser.add_argument("--streams", type=int, default=200, help="streams of the load row")
    parser.add_argument("--seconds", type=float, default=20.0, help="each route's abuse")
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=("flood", "pdfs", "streams", "routes")
    )
    args = parser.parse_args()
    questions = answerable_questions([EVAL / name for name in QUESTION_FILES])
    rows: list[Row] = []
    options = ServerOptions(args.data_dir, args.models_cache, 50, 20.0, None)
    if "flood" not in args.skip or "streams" not in args.skip:
        with servers(options, max(args.streams, 1)) as (running, keys):
            if "flood" not in args.skip:
                quiet, attacked, codes = asyncio.run(
                    sign_in_flood(running, keys[0], questions, args.logins)
                )
                rows += flood_rows(quiet, attacked, codes)
            if "streams" not in args.skip:
                rows += stream_rows(running, keys, questions, args.streams)
    if "routes" not in args.skip:
        rows += route_rows(options, args.data_dir, args.seconds)
    if "pdfs" not in args.skip:
        rows += pdf_rows(args.models_cache)
    print(f"command: {results.command('abuse')}")
    print(table(rows))
    stats = results.index_stats(Settings(data_dir=args.data_dir).catalog_path)
    results.record(
        "abuse",
        [result_table(rows)],
        about=__doc__,
        settings={**vars(args), "index": stats},
        setup=results.index_setup(stats),
    )


if __name__ == "__main__":
    main()
