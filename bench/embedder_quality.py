"""Does the int8 embedder retrieve as well as fp32? Dense recall on the abstract questions.

Both backends embed the same papers (title and abstract, one vector per
paper: the gold papers of the development questions plus the first N
abstracts as distractors) and the same questions; the table gives recall@k
and MRR of the gold paper by exact cosine search, for each backend.

    python -m bench.embedder_quality --distractors 5000
"""

from __future__ import annotations

import argparse
import gzip
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from ingest.embedding import build_embedder
from ingest.metadata import normalise_space

ROOT = Path(__file__).resolve().parents[1]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--distractors", type=int, default=5000)
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    args = parser.parse_args()
    with (SHARED / "eval" / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    rows = [r for r in rows if r["gold_id"]]
    ids, texts = load_corpus(args.distractors, {r["gold_id"] for r in rows})
    print(f"command: python -m bench.embedder_quality {' '.join(map(shlex.quote, sys.argv[1:]))}")
    print(f"{len(texts)} papers, {len(rows)} questions\n")
    print("| embedder | R@1 | R@5 | R@10 | MRR | seconds to embed the papers |")
    print("|---|---|---|---|---|---|")
    for backend, label in (("torch", "fp32 (torch)"), ("onnx", "int8 (onnx)")):
        embedder = build_embedder("local", backend=backend, cache_dir=args.models_cache)
        started = time.perf_counter()
        papers = embedder.embed(texts)
        seconds = time.perf_counter() - started
        questions = embedder.embed([r["question"] for r in rows])
        order = np.argsort(-(questions @ papers.T), axis=1)
        ranks: list[int | None] = []
        for row, ranking in zip(rows, order, strict=True):
            hits = np.nonzero(np.asarray(ids)[ranking] == row["gold_id"])[0]
            ranks.append(int(hits[0]) + 1 if hits.size else None)
        mrr = sum(1 / r for r in ranks if r is not None) / len(ranks)
        print(
            f"| {label} | {recall(ranks, 1):.3f} | {recall(ranks, 5):.3f} "
            f"| {recall(ranks, 10):.3f} | {mrr:.3f} | {seconds:.0f} |"
        )


if __name__ == "__main__":
    main()
