"""Embedding speed and agreement: torch fp32, ONNX fp32 and ONNX int8 MiniLM.

Embeds N real arXiv titles+abstracts with each backend and prints one table:
texts per second, speedup over torch fp32, and the mean and minimum cosine
of each backend's vectors to torch's. The texts are cut into slices and the
backends take turns on each slice, so a change in machine load between runs
falls on all of them alike. `--int8 SPEC` (repeatable) adds an int8 row per
quantisation recipe (`ingest.embedders.quantisation.Int8Recipe.parse`); without it, one
row for the default recipe.

    python -m bench.speed.embedder --n 1000 --threads 2 --int8 all --int8 matmul --int8 matmul:0,2
"""

from __future__ import annotations

import argparse
import gzip
import json
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import results
from ingest.embedders.base import Embedder, Vectors
from ingest.embedders.onnx_embedder import OnnxEmbedder
from ingest.embedders.quantisation import INT8, Int8Recipe
from ingest.embedders.registry import build_embedder

ROOT = Path(__file__).resolve().parents[2]
ABSTRACTS = ROOT.parent / "shared" / "data" / "arxiv" / "abstracts.jsonl.gz"
FLOAT_BACKENDS = {"torch": "torch fp32", "onnx-fp32": "onnx fp32"}


@dataclass
class Run:
    backend: str
    embedder: Embedder
    load_s: float
    seconds: float = 0.0
    parts: list[Vectors] = field(default_factory=list)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    texts = _load_texts(args.abstracts, args.n)
    print(f"$ {_command_line(args)}")
    runs = [_load(backend, args.cache_dir, args.threads) for backend in FLOAT_BACKENDS]
    runs += [_load_int8(recipe, args.cache_dir, args.threads) for recipe in args.int8 or [INT8]]
    for run in runs:
        run.embedder.embed(texts[:64])  # warm-up: first-call allocations
    for start in range(0, len(texts), args.slice):
        part = texts[start : start + args.slice]
        for run in runs:
            began = time.perf_counter()
            run.parts.append(run.embedder.embed(part))
            run.seconds += time.perf_counter() - began
    rows = _rows(runs, len(texts))
    _print_table(rows, len(texts), args.threads)
    columns = ["backend", "texts/s", "speedup", "mean cosine to torch", "min cosine", "load s"]
    formats = {"texts/s": ".1f", "speedup": ".2f", "mean cosine to torch": ".4f",
               "min cosine": ".4f", "load s": ".1f"}  # fmt: skip
    results.record(
        "embedder",
        [results.table("embedding speed and agreement with torch fp32", columns, rows, formats)],
        about=__doc__,
        settings=vars(args),
        setup=f"{len(texts):,} arXiv titles and abstracts, {args.threads} threads",
        argv=_options(args),
    )


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="texts to embed (default 1000)")
    parser.add_argument("--threads", type=int, default=2, help="intra-op threads (default 2)")
    parser.add_argument("--slice", type=int, default=250, help="texts per turn (default 250)")
    parser.add_argument("--cache-dir", type=Path, default=ROOT / "data" / "models")
    parser.add_argument("--abstracts", type=Path, default=ABSTRACTS)
    parser.add_argument("--int8", action="append", type=Int8Recipe.parse, help="int8 recipe")
    return parser.parse_args(argv)


def _command_line(args: argparse.Namespace) -> str:
    return f"python -m bench.speed.embedder {shlex.join(_options(args))}"


def _options(args: argparse.Namespace) -> list[str]:
    """The options of this run, defaults spelt out (but the texts' file)."""
    options = ["--n", str(args.n), "--threads", str(args.threads), "--slice", str(args.slice)]
    options += ["--cache-dir", str(args.cache_dir)]
    if args.abstracts != ABSTRACTS:
        options += ["--abstracts", str(args.abstracts)]
    for recipe in args.int8 or []:
        options += ["--int8", recipe.label()]
    return options


def _load_texts(path: Path, count: int) -> list[str]:
    texts: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            texts.append(f"{record['title']}\n{record['abstract']}")
            if len(texts) == count:
                break
    return texts


def _load(backend: str, cache_dir: Path, threads: int) -> Run:
    began = time.perf_counter()
    embedder = build_embedder(backend, cache_dir=cache_dir, threads=threads)
    return Run(FLOAT_BACKENDS[backend], embedder, time.perf_counter() - began)


def _load_int8(recipe: Int8Recipe, cache_dir: Path, threads: int) -> Run:
    began = time.perf_counter()
    embedder = OnnxEmbedder(cache_dir, threads=threads, recipe=recipe)
    label = f"onnx int8 {recipe.label()}" + (" (default)" if recipe == INT8 else "")
    return Run(label, embedder, time.perf_counter() - began)


def _rows(runs: list[Run], count: int) -> list[list[results.Cell]]:
    """(backend, texts/s, speedup, mean cosine to torch, min cosine, load s) of each run."""
    reference = np.concatenate(runs[0].parts)
    base_rate = count / runs[0].seconds
    rows: list[list[results.Cell]] = []
    for run in runs:
        rate = count / run.seconds
        cosines = np.sum(np.concatenate(run.parts) * reference, axis=1)
        rows.append([run.backend, rate, rate / base_rate, float(cosines.mean()),
                     float(cosines.min()), run.load_s])  # fmt: skip
    return rows


def _print_table(rows: list[list[results.Cell]], count: int, threads: int) -> None:
    print(f"{count} arXiv titles+abstracts, {threads} threads, max 256 word pieces\n")
    print("| backend | texts/s | speedup | mean cosine to torch | min cosine | load s |")
    print("|---|---|---|---|---|---|")
    for backend, rate, speedup, mean, least, load_s in rows:
        print(
            f"| {backend} | {rate:.1f} | {speedup:.2f}x | {mean:.4f} | {least:.4f} | {load_s:.1f} |"
        )


if __name__ == "__main__":
    main()
