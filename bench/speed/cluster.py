"""Cluster throughput: 1 against 2 API nodes behind haproxy, answers a second, first token.

Starts two `paperchat serve` processes (one worker each, extractive answers:
no model, so that the nodes' own work is what is measured) and haproxy with
deploy/haproxy.cfg (`bench.balancer`), once in front of one node and once in
front of both. For each level of `--levels`, that many `POST /api/chat`
streams are released at once through each balancer in turn (1, 2, 2, 1 node
in `--rounds` such passes, so that a drift of the machine's load falls on
both alike), and the client times each stream's first `delta` and its end.
Answers a second: the streams answered over the seconds from their release to
the last one's end. The CPU time the nodes (and haproxy) used over the
passes, an answer, tells what the cores allow whatever else loads them. The
ratios divide the two nodes' figures by the one node's, from the same run.

Both nodes serve one data dir (its catalog, read only, and its Chroma store
through one Chroma server, as a deployment's nodes share one) and one SQLite
service database, with one user and API key per stream.
With `--pin` each node runs on a core of its own (`taskset`), so one node
has one core and two nodes two: the scaling a deployment of one core per
node would see, haproxy and the load generator aside.

    python -m bench.speed.cluster --data-dir /path/to/index --levels 50 200
    python -m bench.speed.cluster --data-dir /path/to/index --levels 50 --rounds 2 --pin
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench import results
from bench.balancer import Balancer, balancer
from bench.load import Stream, chat_stream
from bench.servers import RATE_LIMIT, create_keys, process, wait_until_healthy
from bench.speed.serve import EVAL, QUESTION_FILES, answerable_questions, burst
from chat.rag.retrieval.evaluation import percentile
from chat.settings import Settings
from ingest.index.vectors.server import serving_directory
from tests.support.running.net import unused_port

ORDER = (1, 2, 2, 1)  # nodes behind the balancer, pass after pass in one round


def cpu_seconds(pids: Sequence[int]) -> float:
    """CPU time these processes have used so far (user and system, all threads)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Cluster:
    fronts: dict[int, Balancer]  # the balancer in front of 1 node, and of both
    keys: list[str]
    urls: list[str]  # the nodes'
    pids: list[int]  # the nodes'


@dataclass
class Pass:
    """One level through one balancer: its streams and the seconds they took together."""

    nodes: int
    streams: list[Stream]
    seconds: float
    node_cpu_s: float  # both nodes' CPU over the pass
    balancer_cpu_s: float


@dataclass
class Figures:
    nodes: int
    streams: int
    answers: int = 0
    seconds: float = 0.0
    first_delta_ms: dict[str, float | None] = field(default_factory=dict)
    total_ms: dict[str, float | None] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    handed: dict[str, int] = field(default_factory=dict)  # streams each node was given
    node_cpu_ms: float = 0.0  # the nodes' CPU an answer
    balancer_cpu_ms: float = 0.0  # haproxy's CPU an answer

    @property
    def answers_per_s(self) -> float:
        return self.answers / self.seconds if self.seconds else 0.0


def figures(nodes: int, level: int, passes: Sequence[Pass], handed: dict[str, int]) -> Figures:
    streams = [s for p in passes for s in p.streams]
    answered = [s for s in streams if s.error is None]
    firsts = [s.first_delta_ms for s in answered if s.first_delta_ms is not None]
    totals = [s.total_ms for s in answered if s.total_ms is not None]
    return Figures(
        nodes,
        level,
        answers=len(answered),
        seconds=sum(p.seconds for p in passes),
        first_delta_ms={"p50": percentile(firsts, 50), "p99": percentile(firsts, 99)},
        total_ms={"p50": percentile(totals, 50), "p99": percentile(totals, 99)},
        errors=dict(Counter(s.error for s in streams if s.error)),
        handed=handed,
        node_cpu_ms=sum(p.node_cpu_s for p in passes) * 1000 / max(len(answered), 1),
        balancer_cpu_ms=sum(p.balancer_cpu_s for p in passes) * 1000 / max(len(answered), 1),
    )


async def one_pass(
    running: Cluster, nodes: int, keys: Sequence[str], questions: Sequence[str]
) -> Pass:
    front = running.fronts[nodes]
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    node_cpu, balancer_cpu = cpu_seconds(running.pids), cpu_seconds([front.pid])
    async with httpx.AsyncClient(base_url=front.url, limits=limits, timeout=300.0) as client:
        streams = await burst(
            [chat_stream(client, key, q) for key, q in zip(keys, questions, strict=True)]
        )
    node_cpu = cpu_seconds(running.pids) - node_cpu
    balancer_cpu = cpu_seconds([front.pid]) - balancer_cpu
    # Each stream is timed from its release: the last to end closes the pass.
    seconds = max((s.total_ms or 0.0 for s in streams), default=0.0) / 1000
    return Pass(nodes, streams, seconds, node_cpu, balancer_cpu)


async def measure(running: Cluster, questions: list[str], level: int, rounds: int) -> list[Figures]:
    fronts, keys = running.fronts, running.keys
    passes: dict[int, list[Pass]] = {n: [] for n in fronts}
    before = {n: front.sessions() for n, front in fronts.items()}
    offset = 0
    for _ in range(rounds):
        for nodes in ORDER:
            asked = [questions[(offset + i) % len(questions)] for i in range(level)]
            offset += level
            passes[nodes].append(await one_pass(running, nodes, keys[:level], asked))
            await asyncio.sleep(0.5 + level / 100)  # the streams' last database writes
    found = []
    for nodes, front in fronts.items():
        after = front.sessions()
        handed = {name: after[name] - before[nodes][name] for name in after}
        found.append(figures(nodes, level, passes[nodes], handed))
    return found


async def warm_up(urls: Sequence[str], key: str, questions: Sequence[str]) -> None:
    """A few answers from each node directly: the first ones pay for lazy loading."""
    for url in urls:
        async with httpx.AsyncClient(base_url=url, timeout=300.0) as client:
            for question in questions:
                await chat_stream(client, key, question)


@contextmanager
def cluster(
    data_dir: Path,
    models_cache: Path | None,
    keys_needed: int,
    log: Path | None,
    pin: bool = False,
) -> Iterator[Cluster]:
    """Two nodes, and a balancer in front of one and one in front of both; with `pin`,
    each node on a core of its own (`taskset`: the first node on the first core the
    machine gives this process, the second on the second)."""
    with ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-cluster-")))
        log_path = log or scratch / "processes.log"
        output = stack.enter_context(log_path.open("ab"))
        database_url = f"sqlite:///{scratch / 'service.sqlite'}"
        keys = create_keys(database_url, keys_needed)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        env |= {
            "PAPERCHAT_LLM": "extractive",
            "PAPERCHAT_DATABASE_URL": database_url,
            "PAPERCHAT_SECRET_KEY": secrets.token_urlsafe(32),
            "PAPERCHAT_RATE_LIMIT": RATE_LIMIT,
        }
        if models_cache:
            env["PAPERCHAT_MODELS_CACHE"] = str(models_cache)
        # One Chroma server on the data dir's store for both nodes, as a deployment's nodes
        # share one (a node would not open an embedded store another holds).
        vectors = stack.enter_context(
            serving_directory(data_dir / "chroma", scratch / "chroma.log")
        )
        env["PAPERCHAT_CHROMA_URL"] = vectors.url
        urls, pids = [], []
        serve = [str(Path(sys.executable).with_name("paperchat")), "serve", "--host", "127.0.0.1"]
        cores = sorted(os.sched_getaffinity(0))
        if pin and len(cores) < 2:
            raise SystemExit("--pin needs two cores: this process may run on one")
        for n in range(2):
            port = unused_port()
            command = [*serve, "--port", str(port), "--workers", "1", "--data-dir", str(data_dir)]
            if pin:
                command = ["taskset", "--cpu-list", str(cores[n]), *command]
            node = stack.enter_context(process(command, env, output))
            urls.append(f"http://127.0.0.1:{port}")
            pids.append(node.pid)
            wait_until_healthy(urls[-1], node, log_path)
        addresses = [url.removeprefix("http://") for url in urls]
        fronts = {
            nodes: stack.enter_context(balancer(addresses[:nodes], unused_port(), log_path))
            for nodes in (1, 2)
        }
        yield Cluster(fronts, keys, urls, pids)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def ratio(two: float | None, one: float | None) -> float | None:
    return two / one if two is not None and one else None


def table(found: Sequence[Figures]) -> str:
    lines = [
        "| streams | nodes | answers/s | first `delta` p50 / p99 | whole stream p50 / p99 "
        "| streams each node took | nodes' CPU an answer | haproxy's | errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for f in found:
        errors = ", ".join(f"{k}: {v}" for k, v in f.errors.items()) or "0"
        handed = " / ".join(str(v) for v in f.handed.values())
        lines.append(
            f"| {f.streams} | {f.nodes} | {f.answers_per_s:.1f} "
            f"| {_ms(f.first_delta_ms['p50'])} / {_ms(f.first_delta_ms['p99'])} "
            f"| {_ms(f.total_ms['p50'])} / {_ms(f.total_ms['p99'])} | {handed} "
            f"| {f.node_cpu_ms:.0f} ms | {f.balancer_cpu_ms:.1f} ms | {errors} |"
        )
    return "\n".join(lines)


def ratios(found: Sequence[Figures]) -> list[tuple[int, float | None, float | None]]:
    """(streams, answers a second of 2 nodes over 1, p99 to first delta of 2 over 1)."""
    by = {(f.streams, f.nodes): f for f in found}
    levels = sorted({f.streams for f in found})
    return [
        (
            n,
            ratio(by[n, 2].answers_per_s, by[n, 1].answers_per_s),
            ratio(by[n, 2].first_delta_ms["p99"], by[n, 1].first_delta_ms["p99"]),
        )
        for n in levels
    ]


def result_tables(found: Sequence[Figures]) -> list[results.Table]:
    columns = ["streams", "nodes", "answers/s", "first delta", "whole stream",
               "streams each node took", "nodes' CPU ms an answer", "haproxy's CPU ms an answer",
               "errors", "answered"]  # fmt: skip
    rows: list[list[results.Cell]] = []
    for f in found:
        errors = ", ".join(f"{k}: {v}" for k, v in f.errors.items()) or "0"
        rows.append([
            f.streams, f.nodes, f.answers_per_s, [f.first_delta_ms["p50"], f.first_delta_ms["p99"]],
            [f.total_ms["p50"], f.total_ms["p99"]], " / ".join(map(str, f.handed.values())),
            f.node_cpu_ms, f.balancer_cpu_ms, errors, f.answers,
        ])  # fmt: skip
    title = "through haproxy, ms from the request, p50 / p99, on the client"
    formats = {"answers/s": ".1f", "first delta": ".0f", "whole stream": ".0f",
               "nodes' CPU ms an answer": ".0f", "haproxy's CPU ms an answer": ".1f"}  # fmt: skip
    measured = results.table(title, columns, rows, formats, key_columns=2)
    ratio_rows: list[list[results.Cell]] = [list(r) for r in ratios(found)]
    two_over_one = results.table(
        "2 nodes over 1, from the same run",
        ["streams", "answers/s", "p99 to first delta"],
        ratio_rows,
        {"answers/s": ".2f", "p99 to first delta": ".2f"},
    )
    return [measured, two_over_one]


def notes(args: argparse.Namespace) -> str:
    return textwrap.fill(
        "Two `paperchat serve` processes (one worker each, PAPERCHAT_LLM=extractive) over "
        "one data dir: its SQLite catalog, read only, its store through one Chroma server, "
        "and one SQLite service database; the nodes of a deployment share PostgreSQL "
        "instead. haproxy runs deploy/haproxy.cfg with the nodes named by address. "
        f"{args.rounds} round(s) of passes through 1, 2, 2 and 1 node(s) at each level, "
        "the streams of a pass released at once. "
        + (
            "Each node pinned to a core of its own (taskset): one node has one core, two "
            "nodes two; haproxy, the Chroma server and the load generator run on either."
            if args.pin
            else "The nodes, haproxy and the load generator share this machine's cores."
        ),
        width=100,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Settings().data_dir)
    parser.add_argument("--models-cache", type=Path, help="Default: the data dir's models/.")
    parser.add_argument("--levels", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--rounds", type=int, default=1, help="passes 1, 2, 2, 1 a level")
    parser.add_argument("--log", type=Path, help="keep the processes' logs in this file")
    parser.add_argument("--pin", action="store_true", help="each node on a core of its own")
    args = parser.parse_args()
    questions = answerable_questions([EVAL / name for name in QUESTION_FILES])
    with cluster(args.data_dir, args.models_cache, max(args.levels), args.log, args.pin) as running:
        asyncio.run(warm_up(running.urls, running.keys[0], questions[-3:]))
        found = []
        for level in args.levels:
            found += asyncio.run(measure(running, questions, level, args.rounds))
    print(f"command: {results.command('cluster')}")
    print(table(found))
    print()
    for n, answers, first in ratios(found):
        print(f"{n} streams, 2 nodes over 1: answers/s x{answers or 0:.2f}, "
              f"p99 to first delta x{first or 0:.2f}")  # fmt: skip
    print()
    print(notes(args))
    stats = results.index_stats(Settings(data_dir=args.data_dir).catalog_path)
    results.record(
        "cluster",
        result_tables(found),
        about=__doc__,
        settings={**vars(args), "index": stats, "rate_limit": RATE_LIMIT},
        setup=results.index_setup(stats),
        notes=notes(args),
    )


if __name__ == "__main__":
    main()
