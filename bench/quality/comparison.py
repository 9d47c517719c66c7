"""Comparison tables: how fast ten papers by six aspects fill, and how many cells are right.

Without a model (extractive mode), over ten real papers; five of them are hand-labelled.

The table is filled as `POST /api/compare` fills it (`chat.rag.compare`, extractive
mode, in one event loop), over the full index (`.cache/full-index`; `python -m
bench.full_index` builds it) unless `--data-dir` names another; `--data-dir
.cache/dev-index`, the development index, is the quick loop. The result says which index
it ran over. The time is the fill alone, best of `--rounds` (the index and the embedding
model are opened before). The goal: ten papers by six aspects in under 10 s.

The labels (bench/data/compare_labels.jsonl) were written by reading each of the five
papers: for each aspect, what a right cell says (groups of alternatives, one of each
group in the cell, case and spaces aside), or that the paper does not say it (the
cell is right when it says "not found in the paper").

    python -m bench.quality.comparison [--data-dir .cache/dev-index] [--rounds 3] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "bench" / "data" / "compare_labels.jsonl"
PAPERS = (
    "2004.04906", "2007.01282", "1810.04805", "1706.03762", "1512.03385",
    "2005.11401", "2112.04426", "2010.11929", "2002.08909", "1503.02531",
)  # fmt: skip
GOAL_S = 10.0


def read_labels(path: Path = LABELS) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _plain(text: str) -> str:
    return "".join(text.lower().split())


def is_right(label: dict[str, Any], text: str, citation: str | None) -> bool:
    """Whether a cell says what its label says: not found when the paper does not say it,
    else cited and holding one term of each group."""
    if label.get("absent"):
        return citation is None
    said = _plain(text)
    found = citation is not None
    return found and all(any(_plain(t) in said for t in group) for group in label["answer_terms"])


async def fill(comparer: Any, papers: Sequence[Any], aspects: Sequence[Any]) -> Any:
    from chat.rag.compare.table import Filled

    filled = Filled()
    async for _ in comparer.fill(papers, aspects, filled):
        pass
    return filled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_dir_option(parser)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--verbose", action="store_true", help="print every labelled cell")
    args = parser.parse_args()
    run(args, index_at(args.data_dir))


def run(args: argparse.Namespace, data_dir: Path) -> None:
    from chat.rag.compare.aspects import DEFAULT_ASPECTS, aspects_of
    from chat.rag.compare.table import Comparer, papers_of
    from chat.settings import Settings
    from chat.wiring import Wiring

    wiring = Wiring(Settings(data_dir=data_dir, llm="extractive"))
    comparer = Comparer.of(wiring.answerer)
    papers = papers_of(wiring.catalog, PAPERS)
    aspects = aspects_of(DEFAULT_ASPECTS)
    comparer.quoted(papers[0], aspects[0])  # the embedding model loaded, the indexes opened
    seconds = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        filled = asyncio.run(fill(comparer, papers, aspects))
        seconds.append(time.perf_counter() - started)
    cells = len(papers) * len(aspects)
    best = min(seconds)
    speed = results.table(
        f"{len(papers)} papers by {len(aspects)} aspects, extractive (best of {args.rounds})",
        ("cells", "seconds", "median seconds", "ms per cell", "goal seconds", "met"),
        [[cells, best, statistics.median(seconds), 1000 * best / cells, GOAL_S, best < GOAL_S]],
        {"seconds": ".2f", "median seconds": ".2f", "ms per cell": ".0f"},
    )
    labels = read_labels()
    verdicts = []
    for label in labels:
        cell = filled.cells[(label["paper_id"], label["aspect"])]
        right = is_right(label, cell.text, cell.citation)
        verdicts.append((label, right))
        if args.verbose:
            mark = "RIGHT" if right else "WRONG"
            print(f"[{mark}] {label['paper_id']} {label['aspect']}: {cell.text[:160]}")
    rows: list[list[results.Cell]] = []
    for aspect in DEFAULT_ASPECTS:
        judged = [right for label, right in verdicts if label["aspect"] == aspect]
        rows.append([aspect, len(judged), sum(judged) / len(judged)])
    rows.append(["all", len(verdicts), sum(r for _, r in verdicts) / len(verdicts)])
    quality = results.table(
        "cells right, by aspect (5 hand-labelled papers)",
        ("aspect", "cells", "right"),
        rows,
        {"right": ".0%"},
    )
    for table in (speed, quality):
        print(f"\n{table.title}")
        for row in table.rows:
            print("  " + "  ".join(f"{k}={v}" for k, v in row.items()))
    stats = wiring.catalog.stats()
    results.record(
        "comparison",
        [speed, quality],
        about=__doc__,
        settings={**vars(args), "data_dir": results.shown_path(data_dir), "papers": PAPERS},
        setup=results.index_setup(stats, data_dir),
    )


if __name__ == "__main__":
    main()
