"""Serving latency: concurrent chat streams against `paperchat serve` and a fake upstream model.

Starts the fake OpenAI-compatible upstream (`bench.upstream`, streaming
`--tokens` pieces `--interval-ms` apart) and `paperchat serve` (127.0.0.1) over
the index in `--data-dir`, each in a process of its own, with a scratch database
holding one user and API key per stream (the per-user stream cap and the rate
limit are not what is measured here). The API runs as `paperchat serve` does
when Redis shares its limits: `--workers` (default: one per core) and Redis
(PAPERCHAT_REDIS_URL when set, else a `redis-server` of its own). Its CPU is
that of the serve process and every process under it (the workers, the Chroma
server it runs on the embedded index: its part is also given alone). Then,
for each level of `--levels`, it fires that many `POST /api/chat` streams at
once, each with a different question, and measures on the client the time
to the `sources` event, to the first `delta` and to the end. The upstream's
own time to its first token is measured by the same number of streams sent
to it directly just before; "added" is the first `delta` minus that.

    python -m bench.speed.serve --data-dir /path/to/full/index --levels 1 100 200
    python -m bench.speed.serve --data-dir /path/to/full/index --workers 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import textwrap
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from bench import results
from bench.load import Stream, chat_stream, upstream_stream
from bench.servers import (
    RATE_LIMIT,
    Cpu,
    ServerOptions,
    Servers,
    cpu_seconds,
    default_workers,
    servers,
)
from chat.rag.retrieval.evaluation import load_questions, percentile
from chat.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "data" / "eval"
QUESTION_FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl")
# A level with fewer streams runs in several rounds, one after the other, so that its
# percentiles rest on at least this many streams.
MIN_SAMPLES = 20
# Bursts of this many streams a worker come first, unmeasured, until each worker has spent
# this much CPU answering them, or this many bursts were sent.
WARM_UP_STREAMS = 3
WARM_UP_CPU_S = 1.0
WARM_UP_BURSTS = 12


def answerable_questions(files: Sequence[Path]) -> list[str]:
    """The answerable questions of `files`, distinct, in file order."""
    texts = [q.question for path in files for q in load_questions(path) if q.gold_id]
    return list(dict.fromkeys(texts))


@dataclass
class Level:
    streams: int
    sources_ms: dict[str, float | None] = field(default_factory=dict)
    first_delta_ms: dict[str, float | None] = field(default_factory=dict)
    upstream_first_token_ms: dict[str, float | None] = field(default_factory=dict)
    added_ms: dict[str, float | None] = field(default_factory=dict)
    total_ms: dict[str, float | None] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    timed: int = 0  # streams measured: `streams` times the rounds
    refused: int = 0
    api_cpu_ms: float = 0.0  # CPU the API's processes used per chat stream, all of them
    chroma_cpu_ms: float = 0.0  # of which the Chroma server's
    # As the API timed them from the start of each answer (after sign-in and the database).
    server_ms: dict[str, dict[str, float | None]] = field(default_factory=dict)


def _spread(values: Sequence[float | None]) -> dict[str, float | None]:
    present = [v for v in values if v is not None]
    return {"p50": percentile(present, 50), "p99": percentile(present, 99)}


def summarise(streams: int, chats: Sequence[Stream], direct: Sequence[Stream], cpu: Cpu) -> Level:
    per_stream = 1000 / max(len(chats), 1)
    level = Level(streams, api_cpu_ms=cpu.total_s * per_stream,
                  chroma_cpu_ms=cpu.chroma_s * per_stream)  # fmt: skip
    level.sources_ms = _spread([s.sources_ms for s in chats])
    level.first_delta_ms = _spread([s.first_delta_ms for s in chats if not s.refused])
    level.upstream_first_token_ms = _spread([s.first_delta_ms for s in direct])
    for q in ("p50", "p99"):
        ours, theirs = level.first_delta_ms[q], level.upstream_first_token_ms[q]
        level.added_ms[q] = ours - theirs if ours is not None and theirs is not None else None
    level.total_ms = _spread([s.total_ms for s in chats])
    level.errors = dict(Counter(s.error for s in chats if s.error))
    level.timed = len(chats)
    level.refused = sum(s.refused for s in chats)
    timed = [s.server_ms for s in chats if s.server_ms]
    for name in ("retrieval_ms", "first_token_ms", "total_ms"):
        level.server_ms[name] = _spread([t.get(name) for t in timed])
    return level


async def burst(streams: Sequence[Awaitable[Stream]]) -> list[Stream]:
    """Run the stream coroutines together, released at the same moment."""
    start = asyncio.Event()

    async def released(stream: Awaitable[Stream]) -> Stream:
        await start.wait()
        return await stream

    tasks = [asyncio.create_task(released(s)) for s in streams]
    await asyncio.sleep(0.1)  # every task is waiting on `start`
    start.set()
    return await asyncio.gather(*tasks)


async def measure(servers: Servers, keys: list[str], questions: list[str], n: int) -> Level:
    """`n` streams at once, in as many rounds as give `MIN_SAMPLES` streams (one round at 50)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    timeout = httpx.Timeout(120.0)
    rounds = -(-MIN_SAMPLES // n)
    chats: list[Stream] = []
    direct: list[Stream] = []
    cpu = Cpu(0.0, 0.0)
    for number in range(rounds):
        asked = [questions[(number * n + i) % len(questions)] for i in range(n)]
        async with httpx.AsyncClient(
            base_url=servers.upstream_url, limits=limits, timeout=timeout
        ) as client:
            direct += await burst([upstream_stream(client, q) for q in asked])
        await asyncio.sleep(0.2)
        cpu_before = servers.api_cpu()
        async with httpx.AsyncClient(
            base_url=servers.api_url, limits=limits, timeout=timeout
        ) as client:
            streams = [chat_stream(client, key, q) for key, q in zip(keys[:n], asked, strict=True)]
            chats += await burst(streams)
        cpu += servers.api_cpu() - cpu_before
        await asyncio.sleep(0.2 + n / 100)  # the streams' last database writes
    return summarise(n, chats, direct, cpu)


async def warm_up(servers: Servers, keys: list[str], questions: list[str]) -> None:
    """Unmeasured bursts of a few streams a worker until each worker has spent
    `WARM_UP_CPU_S` on them (`WARM_UP_BURSTS` at most): a worker's first answers pay for
    what it loads lazily, and the kernel hands a connection to whichever worker takes it
    first, so that one burst may reach a single worker."""
    size = WARM_UP_STREAMS * servers.workers
    workers = servers.worker_pids()
    spent = dict.fromkeys(workers, 0.0)
    async with httpx.AsyncClient(base_url=servers.api_url, timeout=120.0) as client:
        for number in range(WARM_UP_BURSTS):
            if min(spent.values()) >= WARM_UP_CPU_S:
                return
            before = {pid: cpu_seconds(pid) for pid in workers}
            asked = [questions[-1 - (number * size + i) % len(questions)] for i in range(size)]
            await burst([chat_stream(client, k, q) for k, q in zip(keys, asked, strict=False)])
            for pid in workers:
                spent[pid] += cpu_seconds(pid) - before[pid]


async def run(
    servers: Servers, keys: list[str], questions: list[str], levels: list[int]
) -> list[Level]:
    await warm_up(servers, keys, questions)
    results = []
    offset = 0
    for n in levels:
        # Each level starts where the last one stopped, so that questions repeat only
        # once they have all been asked.
        results.append(await measure(servers, keys, questions[offset:] + questions[:offset], n))
        offset = (offset + n * -(-MIN_SAMPLES // n)) % len(questions)
    return results


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _pair(spread: dict[str, float | None]) -> str:
    return f"{_ms(spread['p50'])} / {_ms(spread['p99'])}"


def table(levels: Sequence[Level]) -> str:
    head = (
        "| streams | to `sources` | to first `delta` | upstream's first token "
        "| added to first `delta` | whole stream | API CPU per stream "
        "| of which the Chroma server | errors |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for level in levels:
        errors = ", ".join(f"{k}: {v}" for k, v in level.errors.items()) or "0"
        lines.append(
            f"| {level.streams} | {_pair(level.sources_ms)} | {_pair(level.first_delta_ms)} "
            f"| {_pair(level.upstream_first_token_ms)} | {_pair(level.added_ms)} "
            f"| {_pair(level.total_ms)} | {level.api_cpu_ms:.0f} | {level.chroma_cpu_ms:.0f} "
            f"| {errors} |"
        )
    return "\n".join(lines)


def result_table(levels: Sequence[Level]) -> results.Table:
    """The printed table's figures, p50 and p99 as pairs, and the streams answered without
    the model."""
    columns = [
        "streams", "to sources", "to first delta", "upstream's first token",
        "added to first delta", "whole stream", "API CPU per stream",
        "of which the Chroma server", "errors", "timed", "answered without the model",
    ]  # fmt: skip
    rows: list[list[results.Cell]] = []
    for level in levels:
        spreads = (level.sources_ms, level.first_delta_ms, level.upstream_first_token_ms,
                   level.added_ms, level.total_ms)  # fmt: skip
        errors = ", ".join(f"{k}: {v}" for k, v in level.errors.items()) or "0"
        rows.append([
            level.streams, *([s["p50"], s["p99"]] for s in spreads), level.api_cpu_ms,
            level.chroma_cpu_ms, errors, level.timed, level.refused,
        ])  # fmt: skip
    title = "ms from the request, p50 / p99, on the client"
    return results.table(title, columns, rows, dict.fromkeys(columns[1:8], ".0f"))


def goals(levels: Sequence[Level]) -> list[str]:
    """The serving goals this run can judge, each with whether it was met."""
    by_streams = {level.streams: level for level in levels}
    checks: list[tuple[str, float | None, float]] = []
    if 1 in by_streams:
        checks.append(("p50 to `sources`, 1 stream", by_streams[1].sources_ms["p50"], 100))
        checks.append(("p50 added to first `delta`, 1 stream", by_streams[1].added_ms["p50"], 50))
    if 100 in by_streams:
        checks.append(("p99 to first `delta`, 100 streams", by_streams[100].first_delta_ms["p99"],
                       2500))  # fmt: skip
    if 200 in by_streams:
        checks.append(("p99 added to first `delta`, 200", by_streams[200].added_ms["p99"], 500))
        checks.append(("errors, 200 streams", float(sum(by_streams[200].errors.values())), 1))
    lines = []
    for name, value, limit in checks:
        verdict = "met" if value is not None and value < limit else "NOT met"
        lines.append(f"{name}: {_ms(value)} (goal < {limit:g}): {verdict}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Settings().data_dir)
    parser.add_argument("--models-cache", type=Path, help="Default: the data dir's models/.")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 100, 200])
    parser.add_argument("--tokens", type=int, default=50, help="pieces the upstream streams")
    parser.add_argument("--interval-ms", type=float, default=20.0, help="between the pieces")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    parser.add_argument("--log", type=Path, help="keep the servers' logs in this file")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="API worker processes. Default: as `paperchat serve` runs with "
                             "Redis, one per core (%(default)s here).")  # fmt: skip
    args = parser.parse_args()
    questions = answerable_questions([EVAL / name for name in QUESTION_FILES])
    options = ServerOptions(
        args.data_dir, args.models_cache, args.tokens, args.interval_ms, args.log,
        workers=args.workers, redis=True,
    )  # fmt: skip
    keys_needed = max(*args.levels, WARM_UP_STREAMS * args.workers)
    with servers(options, keys_needed) as (running, keys):
        levels = asyncio.run(run(running, keys, questions, args.levels))
    notes_text = notes(args, levels, running)
    if args.json:
        print(json.dumps({"levels": [asdict(level) for level in levels]}, indent=2))
    else:
        print(f"command: {results.command('serve')}")
        print(table(levels))
        print()
        print(textwrap.fill(notes_text, width=100))
        print("\n".join(goals(levels)))
    stats = results.index_stats(Settings(data_dir=args.data_dir).catalog_path)
    results.record(
        "serve",
        [result_table(levels)],
        about=__doc__,
        settings={
            **vars(args),
            "index": stats,
            "rate_limit": RATE_LIMIT,
            "redis": running.redis,
        },
        setup=results.index_setup(stats),
        notes=notes_text,
    )


def notes(args: argparse.Namespace, levels: Sequence[Level], running: Servers) -> str:
    refused = ", ".join(f"{level.refused}/{level.timed}" for level in levels)
    return (
        f"`paperchat serve --workers {running.workers}` with Redis ({running.redis}); its CPU "
        f"is the serve process's and every process's under it, the Chroma server's "
        f"included (and given alone). Times in ms from the request, p50 / p99, on the "
        f"client; levels under {MIN_SAMPLES} streams run in rounds until {MIN_SAMPLES} "
        f"were timed. The upstream streams "
        f"{args.tokens} tokens {args.interval_ms:g} ms apart; its first token is timed on "
        f"as many streams sent to it directly. One user and API key per stream and "
        f"PAPERCHAT_RATE_LIMIT={RATE_LIMIT}, so that neither the per-user stream cap nor "
        f"the rate limit turns streams away. Answered without the model (no relevant "
        f"source): {refused}."
    )


if __name__ == "__main__":
    main()
