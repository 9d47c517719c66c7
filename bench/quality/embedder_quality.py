"""Does the int8 embedder retrieve as well as fp32? Dense recall on the abstract questions.

Every embedder embeds the same papers (title and abstract, one vector per
paper: the gold papers of the development questions plus the first N
abstracts as distractors) and the same questions; the table gives recall@k
and MRR of the gold paper by exact cosine search, for each: torch fp32
(unless `--no-torch`) and one int8 row per `--int8 SPEC` recipe
(`ingest.embedders.quantisation.Int8Recipe.parse`; the default recipe without it).

    python -m bench.quality.embedder_quality --distractors 5000 --int8 all --int8 matmul:0,2
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from bench import results
from ingest.embedders.base import Embedder
from ingest.embedders.onnx_embedder import OnnxEmbedder
from ingest.embedders.quantisation import INT8, Int8Recipe
from ingest.embedders.torch_embedder import TorchEmbedder
from ingest.sources.metadata import normalise_space

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"


def load_corpus(distractors: int, gold: set[str]) -> tuple[list[str], list[str]]:
    ids: list[str] = []
    texts: list[str] = []
    with gzip.open(SHARED / "arxiv" / "abstracts.jsonl.gz", "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            record = json.loads(line)
            if number < distractors or record["id"] in gold:
                ids.append(record["id"])
                texts.append(normalise_space(f"{record['title']}\n\n{record['abstract']}"))
    return ids, texts


def recall(ranks: list[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def ranks_of_gold(
    embedder: Embedder, ids: list[str], texts: list[str], rows: list[dict[str, str]]
) -> tuple[list[int | None], float]:
    """The gold paper's rank for every question (None past the end), and seconds to embed papers."""
    started = time.perf_counter()
    papers = embedder.embed(texts)
    seconds = time.perf_counter() - started
    questions = embedder.embed([r["question"] for r in rows])
    order = np.argsort(-(questions @ papers.T), axis=1)
    ranks: list[int | None] = []
    for row, ranking in zip(rows, order, strict=True):
        hits = np.nonzero(np.asarray(ids)[ranking] == row["gold_id"])[0]
        ranks.append(int(hits[0]) + 1 if hits.size else None)
    return ranks, seconds


def embedders(args: argparse.Namespace) -> list[tuple[str, Callable[[], Embedder]]]:
    """(label, how to build it), built one at a time so only one model is in memory."""
    chosen: list[tuple[str, Callable[[], Embedder]]] = []
    if not args.no_torch:
        chosen.append(("fp32 (torch)", TorchEmbedder))
    for recipe in args.int8 or [INT8]:
        label = f"int8 (onnx, {recipe.label()}{', default' if recipe == INT8 else ''})"
        chosen.append((label, partial(OnnxEmbedder, args.models_cache, recipe=recipe)))
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--distractors", type=int, default=5000)
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--no-torch", action="store_true", help="leave out the fp32 row")
    parser.add_argument("--int8", action="append", type=Int8Recipe.parse, help="int8 recipe")
    args = parser.parse_args()
    with (SHARED / "eval" / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    rows = [r for r in rows if r["gold_id"]]
    ids, texts = load_corpus(args.distractors, {r["gold_id"] for r in rows})
    print(f"command: {results.command('embedder_quality')}")
    print(f"{len(texts)} papers, {len(rows)} questions\n")
    columns = ["embedder", "R@1", "R@5", "R@10", "MRR", "seconds to embed the papers"]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|")
    found: list[list[results.Cell]] = []
    for label, build in embedders(args):
        ranks, seconds = ranks_of_gold(build(), ids, texts, rows)
        mrr = sum(1 / r for r in ranks if r is not None) / len(ranks)
        found.append([label, recall(ranks, 1), recall(ranks, 5), recall(ranks, 10), mrr, seconds])
        print(
            f"| {label} | {recall(ranks, 1):.3f} | {recall(ranks, 5):.3f} "
            f"| {recall(ranks, 10):.3f} | {mrr:.3f} | {seconds:.0f} |",
            flush=True,
        )
    formats = dict.fromkeys(columns[1:5], ".3f") | {columns[5]: ".0f"}
    results.record(
        "embedder_quality",
        [results.table("dense recall of the gold paper, exact search", columns, found, formats)],
        about=__doc__,
        settings=vars(args),
        setup=f"{len(texts):,} papers, {len(rows)} questions",
    )


if __name__ == "__main__":
    main()
