"""How often a question that keeps watch fires on a new paper that truly answers it, and how
often on one that does not.

Each question of bench/data/watches.jsonl is answered by one paper (`gold_id`), written
from that paper's abstract; every third row (w003, w006, ...) is held out: nobody tunes the
watching on it. The index is a copy of `--data-dir` (the full index unless it names
another) without the gold papers, without each question's near paper (the paper, not its
gold one, that the question retrieves first in the whole index: on its topic, not the
paper it was written from) and without 30 other papers drawn at random (the decoys): each
question is saved there (`chat.rag.watching.Watcher.baseline`), then all of those are
ingested as new papers (`paperchat ingest abstracts`, as an operator would), and each
question is asked again over the arrivals (`Watcher.news`), as a look at "Latest for
you" does. A question fires on a paper when the paper is news for it.

Counted: recall (the questions that fired on their gold paper), precision (of every
(question, paper) fired, the share on a paper that answers the question: its gold paper,
or a near paper read by eye and found to answer it too, listed in `also_answered_by`; the
other questions' gold and near papers and the decoys are arrivals too), the same share
counting the gold paper alone, the questions that fired on a paper that does not answer
them, those that fired on their near paper, and the milliseconds of one question's check.
The near papers were read by eye, title and abstract against the question: 14 of the 60
answer theirs.

    python -m bench.quality.watches [--data-dir .cache/dev-index] [--work DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at
from bench.results import ROOT

QUESTIONS = Path(__file__).resolve().parents[1] / "data" / "watches.jsonl"
ABSTRACTS = ROOT.parent / "shared" / "data" / "arxiv" / "abstracts.jsonl.gz"
WORK = ROOT / ".cache" / "watch-bench"
DECOYS = 30
SEED = 46
SPLITS = ("dev", "held_out", "all")
COLUMNS = (
    "questions", "recall", "precision", "precision, gold only", "wrong fires",
    "questions with a wrong fire", "fired on the near paper",
)  # fmt: skip


def read_questions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def arrivals(
    rows: Sequence[Mapping[str, Any]], near: Mapping[str, str], catalog_ids: set[str]
) -> list[str]:
    """The records of the gold papers, the near papers and `DECOYS` other papers of the
    index, drawn at random (seeded), as lines of the abstracts file."""
    gold = {r["gold_id"] for r in rows} | set(near.values())
    lines: dict[str, str] = {}
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as found:
        for line in found:
            paper = json.loads(line)["id"]
            if paper in catalog_ids:
                lines[paper] = line
    others = sorted(set(lines) - gold)
    decoys = random.Random(SEED).sample(others, DECOYS)
    return [lines[p] for p in sorted(gold) if p in lines] + [lines[p] for p in decoys]


def near_papers(index: Any, rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each question's near paper: the first the question retrieves in the whole index that
    is not a question's gold paper and has no PDF (read again from its abstract only)."""
    from ingest.index.filters import Filters

    gold = {r["gold_id"] for r in rows}
    found: dict[str, str] = {}
    for row in rows:
        ranking = index.retriever.retrieve(row["question"], Filters()).paper_ranking()
        found[row["qid"]] = next(
            p
            for p in ranking
            if p not in gold and p not in found.values() and index.catalog.pdf_record(p) is None
        )
    return found


def _wiring(data_dir: Path) -> Any:
    from chat.settings import Settings
    from chat.wiring import Wiring

    return Wiring(Settings(data_dir=data_dir))


def prepare(work: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """In the copy: the arrivals taken out of the index, and each question's baseline."""
    from ingest.index.filters import Filters
    from ingest.index.writer import Indexer

    index = _wiring(work / "index")
    held = {str(r[0]) for r in index.catalog.db.execute("SELECT id FROM papers")}
    near = near_papers(index, rows)
    (work / "near.json").write_text(json.dumps(near), encoding="utf-8")
    lines = arrivals(rows, near, held)
    (work / "arrivals.jsonl").write_text("".join(lines), encoding="utf-8")
    indexer = Indexer(index.catalog, index.unchecked_store, index.lexical)
    for line in lines:
        indexer.delete_paper(json.loads(line)["id"])
    watcher = index.watcher
    baselines = {}
    for row in rows:
        baseline = watcher.baseline(row["question"], Filters())
        baselines[row["qid"]] = {"chunk_ids": baseline.chunk_ids, "cited": baseline.cited}
    (work / "baselines.json").write_text(json.dumps(baselines), encoding="utf-8")
    index.close()


def check(work: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Each question asked again over the index with the arrivals: its news."""
    from chat.rag.watching import Baseline
    from ingest.index.filters import Filters

    index = _wiring(work / "index")
    arrived = {json.loads(line)["id"] for line in (work / "arrivals.jsonl").open()}
    saved = json.loads((work / "baselines.json").read_text(encoding="utf-8"))
    watcher, found = index.watcher, {}
    watcher.news(rows[0]["question"], Filters(), Baseline(), arrived)  # loads the models
    for row in rows:
        baseline = Baseline(
            tuple(saved[row["qid"]]["chunk_ids"]), tuple(saved[row["qid"]]["cited"])
        )
        started = time.perf_counter()
        news = watcher.news(row["question"], Filters(), baseline, arrived)
        found[row["qid"]] = {
            "ms": (time.perf_counter() - started) * 1000,
            "sources": len(baseline.chunk_ids),
            "news": [{"paper": n.paper_id, "sentence": n.sentence, "rank": n.rank} for n in news],
        }
    (work / "news.json").write_text(json.dumps(found), encoding="utf-8")
    index.close()


def _step(step: str, args: argparse.Namespace) -> None:
    command = [sys.executable, "-m", "bench.quality.watches", "--step", step]
    subprocess.run([*command, "--work", str(args.work), "--questions", str(args.questions)],
                   check=True)  # fmt: skip


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The copy made, the questions saved, the arrivals ingested, the questions checked:
    each in a process of its own, as the embedded vector store is one process's."""
    index = args.work / "index"
    if index.exists():
        shutil.rmtree(index)
    args.work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(args.data_dir, index, symlinks=True)
    (index / "chroma.lock").unlink(missing_ok=True)
    _step("prepare", args)
    ingest = [sys.executable, "-m", "chat.cli", "ingest", "abstracts"]
    subprocess.run([*ingest, str(args.work / "arrivals.jsonl"), "--data-dir", str(index)],
                   check=True)  # fmt: skip
    _step("check", args)
    found: dict[str, Any] = json.loads((args.work / "news.json").read_text(encoding="utf-8"))
    return found


def score(row: Mapping[str, Any], checked: Mapping[str, Any], near: str) -> dict[str, float]:
    fired = {n["paper"] for n in checked["news"]}
    wrong = fired - {row["gold_id"], *row.get("also_answered_by", ())}
    return {
        "hit": float(row["gold_id"] in fired),
        "fired": float(len(fired)),
        "answering": float(len(fired) - len(wrong)),
        "wrong": float(len(wrong)),
        "any wrong": float(bool(wrong)),
        "near": float(near in fired),
    }


def table_rows(
    rows: Sequence[Mapping[str, Any]], scored: Sequence[Mapping[str, float]]
) -> list[list[results.Cell]]:
    out: list[list[results.Cell]] = []
    for split in SPLITS:
        chosen = [s for r, s in zip(rows, scored, strict=True) if split in ("all", r["split"])]
        fired = sum(s["fired"] for s in chosen)
        hits = sum(s["hit"] for s in chosen)
        n = len(chosen)
        precision = sum(s["answering"] for s in chosen) / fired if fired else None
        gold_only = hits / fired if fired else None
        wrong = sum(s["wrong"] for s in chosen)
        any_wrong = sum(s["any wrong"] for s in chosen) / n
        near = sum(s["near"] for s in chosen) / n
        out.append([split, n, hits / n, precision, gold_only, wrong, any_wrong, near])
    return out


def _shown(cell: results.Cell) -> str:
    if cell is None:
        return "-"
    return f"{cell:.3g}" if isinstance(cell, float) else str(cell)


def show(row: Mapping[str, Any], checked: Mapping[str, Any], near: str) -> None:
    fired = ", ".join(n["paper"] for n in checked["news"]) or "-"
    verdict = "HIT " if any(n["paper"] == row["gold_id"] for n in checked["news"]) else "MISS"
    about = f"gold {row['gold_id']} near {near}"
    print(f"[{verdict}] {row['qid']} {about} fired {fired}: {row['question']}")
    for news in checked["news"]:
        print(f"    {news['paper']} (rank {news['rank']}): {news['sentence'][:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_dir_option(parser)
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="The question file.")
    parser.add_argument("--work", type=Path, default=WORK, help="Where the index is copied.")
    parser.add_argument("--verbose", action="store_true", help="Print every question.")
    parser.add_argument("--step", choices=("prepare", "check"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = read_questions(args.questions)
    if args.step:
        (prepare if args.step == "prepare" else check)(args.work, rows)
        return
    index_at(args.data_dir)
    checked = run(args)
    near = json.loads((args.work / "near.json").read_text(encoding="utf-8"))
    scored = [score(row, checked[row["qid"]], near[row["qid"]]) for row in rows]
    for row in rows:
        if args.verbose:
            show(row, checked[row["qid"]], near[row["qid"]])
    body = table_rows(rows, scored)
    columns = ["split", *COLUMNS]
    print("\n| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for cells in body:
        print("| " + " | ".join(_shown(c) for c in cells) + " |")
    timing = statistics.median(c["ms"] for c in checked.values())
    print(f"one question's check: {timing:.0f} ms p50")
    formats = {"recall": ".3f", "precision": ".3f", "precision, gold only": ".3f"}
    formats["wrong fires"] = ".0f"
    formats["questions with a wrong fire"] = ".3f"
    formats["fired on the near paper"] = ".3f"
    stats = results.index_stats(args.data_dir / "catalog.sqlite")
    results.record(
        "watches",
        [
            results.table("questions that keep watch", columns, body, formats),
            results.figures("time", {"check ms p50": timing}, {"check ms p50": ".0f"}),
        ],
        about=__doc__,
        settings={"data_dir": str(args.data_dir), "decoys": DECOYS, "seed": SEED},
        setup=results.index_setup(stats, args.data_dir),
        notes=f"{len(rows)} questions, each answered by one paper; arrivals: the "
        f"{len(rows)} gold papers, the {len(rows)} near papers and {DECOYS} decoys",
    )


if __name__ == "__main__":
    main()
