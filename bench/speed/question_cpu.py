"""The API's CPU per question: questions asked one after another, extractive and with a model.

Starts `paperchat serve` (one worker, 127.0.0.1) over the index in
`--data-dir` with the fake upstream beside it (`bench.servers`), once with
extractive answers and once with the fake model (streaming `--tokens` pieces
`--interval-ms` apart), and asks `--questions` answerable questions of the
evaluation sets through `POST /api/chat`, one at a time, each read to its
end. The API process's CPU time (user and system, every thread, from /proc)
is read before and after each question, summed over the serve process and
every process under it (the Chroma server it runs on the embedded vector
index, whose part is also given alone): its p50 and mean are the CPU a
question costs the server, everything included (sign-in by API key, the
database writes of the turn, retrieval, the vector search, the answer, the
citation guard, the events). The retrieval time the answers report is beside it: the part a
question cannot avoid.

    python -m bench.speed.question_cpu --data-dir .cache/full-index --questions 100
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import results
from bench.dev_index import FULL_INDEX
from bench.load import chat_stream
from bench.servers import ServerOptions, Servers, servers
from bench.speed.serve import EVAL, QUESTION_FILES, answerable_questions
from chat.rag.retrieval.evaluation import percentile
from chat.settings import Settings

WARM_UP = 3  # questions asked first, not counted: the first answers pay for lazy loading
MODES = {"extractive": "extractive", "fake model": "openai"}


@dataclass
class Mode:
    name: str
    questions: int
    cpu_ms: list[float]
    chroma_ms: list[float]
    retrieval_ms: list[float]
    total_ms: list[float]
    errors: int

    def row(self) -> list[results.Cell]:
        return [
            self.name,
            self.questions,
            percentile(self.cpu_ms, 50),
            statistics.fmean(self.cpu_ms) if self.cpu_ms else None,
            percentile(self.cpu_ms, 90),
            percentile(self.chroma_ms, 50),
            percentile(self.retrieval_ms, 50),
            percentile(self.total_ms, 50),
            self.errors,
        ]


async def ask_each(running: Servers, key: str, questions: Sequence[str], name: str) -> Mode:
    cpu, chroma, retrieval, total, errors = [], [], [], [], 0
    async with httpx.AsyncClient(base_url=running.api_url, timeout=120.0) as client:
        for question in questions[-WARM_UP:]:
            await chat_stream(client, key, question)
        for question in questions:
            before = running.api_cpu()
            stream = await chat_stream(client, key, question)
            used = running.api_cpu() - before
            cpu.append(used.total_s * 1000)
            chroma.append(used.chroma_s * 1000)
            if stream.error is not None:
                errors += 1
                continue
            server = stream.server_ms or {}
            retrieval.append(float(server.get("retrieval_ms", 0.0)))
            total.append(stream.total_ms or 0.0)
    return Mode(name, len(questions), cpu, chroma, retrieval, total, errors)


def measure(args: argparse.Namespace, questions: Sequence[str]) -> list[Mode]:
    modes = []
    for name in args.modes:
        options = ServerOptions(
            args.data_dir, args.models_cache, args.tokens, args.interval_ms, None, MODES[name]
        )
        with servers(options, 1) as (running, keys):
            modes.append(asyncio.run(ask_each(running, keys[0], questions, name)))
    return modes


COLUMNS = [
    "answers", "questions", "API CPU per question, p50", "mean", "p90",
    "of which the Chroma server, p50",
    "retrieval (as the answer times it), p50", "whole answer on the client, p50", "errors",
]  # fmt: skip


def table(modes: Sequence[Mode]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for mode in modes:
        cells = ["-" if c is None else f"{c:.1f}" if isinstance(c, float) else str(c)
                 for c in mode.row()]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=FULL_INDEX)
    parser.add_argument("--models-cache", type=Path, help="Default: the data dir's models/.")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    parser.add_argument("--tokens", type=int, default=50, help="pieces the fake model streams")
    parser.add_argument("--interval-ms", type=float, default=20.0, help="between the pieces")
    args = parser.parse_args()
    questions = answerable_questions([EVAL / name for name in QUESTION_FILES])[: args.questions]
    modes = measure(args, questions)
    print(f"command: {results.command('question_cpu')}")
    print(table(modes))
    stats = results.index_stats(Settings(data_dir=args.data_dir).catalog_path)
    title = "ms, one question at a time; CPU of the API process, all threads"
    formats = dict.fromkeys(COLUMNS[2:8], ".1f")
    results.record(
        "question_cpu",
        [results.table(title, COLUMNS, [mode.row() for mode in modes], formats)],
        about=__doc__,
        settings={**vars(args), "index": stats},
        setup=results.index_setup(stats),
    )


if __name__ == "__main__":
    main()
