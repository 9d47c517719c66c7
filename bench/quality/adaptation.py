"""Hard questions without a bigger model: the adapted embedder and the cheap levers, one table.

Each row is one way of searching, measured in the same run over the same
questions: the default, each lever alone (RM3 on BM25, the BM25 query
expanded with every defined name's long forms, with co-occurring terms,
fusion weights by the question's style), and, given an index embedded again
by a model of `paperchat embedder train` (`--adapted-data-dir` and
`--adapted-model`), that model alone and with the levers chosen.

Columns: recall@5 of the gold paper (hybrid, distinct papers) on the
held-out hard questions (`bench/data/hard_heldout.jsonl`) by style, on the
development hard questions, recall@1/@5 on the abstract and PDF questions,
and recall@5 on the named-method questions of `bench.quality.names`. The
held-out questions are split by a fixed rule (`split_of`): the `tune` half
chooses recipes, the `test` half is reported (`--split`).

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.adaptation [--data-dir .cache/dev-index] \\
        --adapted-data-dir /path/to/reembedded/index --adapted-model /path/to/model
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at
from bench.quality.names import dev_set
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.evaluation import Question, evaluate, load_questions
from chat.rag.retrieval.expansion import ExpansionConfig
from chat.rag.retrieval.feedback import Rm3Config
from chat.rag.retrieval.retriever import Retriever
from chat.rag.retrieval.style import STYLES, StyleConfig
from chat.settings import Settings
from chat.wiring import Wiring

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "data" / "eval"
HELD_OUT = ROOT / "bench" / "data" / "hard_heldout.jsonl"

LEVERS: tuple[tuple[str, RetrievalConfig], ...] = (
    ("default", RetrievalConfig()),
    ("RM3 on BM25 (10 terms of 8 passages, question 0.6)", RetrievalConfig(rm3=Rm3Config(10))),
    (
        "expansion: every defined name's long forms",
        RetrievalConfig(expansion=ExpansionConfig(all_names=True)),
    ),
    (
        "expansion: 3 co-occurring terms per rarer term",
        RetrievalConfig(expansion=ExpansionConfig(cooccurring=3)),
    ),
    ("fusion weights by style", RetrievalConfig(style=StyleConfig(enabled=True))),
)


def split_of(qid: str) -> str:
    """The fixed rule: a held-out question whose number is even is `test`, odd `tune`
    (25 of each style in each half)."""
    return "test" if int(qid.rsplit("-", 1)[1]) % 2 == 0 else "tune"


@dataclass
class Row:
    label: str
    figures: dict[str, float | None]
    seconds: float


def _recall(report: dict[str, Any], kind: str | None, key: str) -> float | None:
    block = report if kind is None else report["by_type"].get(kind)
    if not block:
        return None
    value = block["hybrid"].get(key)
    return None if value is None else float(value)


def named_recall(retriever: Retriever, rows: Sequence[dict[str, Any]]) -> float | None:
    """Recall@5 of the defining paper on the named questions' own phrasings."""
    asked = [r for r in rows if r["kind"] in ("stand_for", "what_is", "results", "how")]
    if not asked:
        return None
    hits = 0
    for row in asked:
        papers = retriever.retrieve(row["question"]).paper_ranking()
        hits += row["gold_id"] in papers[:5]
    return hits / len(asked)


def measure(
    label: str,
    retriever: Retriever,
    held: Sequence[Question],
    sets: dict[str, list[Question]],
    named: Sequence[dict[str, Any]],
) -> Row:
    started = time.perf_counter()
    figures: dict[str, float | None] = {}
    report = evaluate(retriever, held)
    for style in STYLES:
        figures[f"hard {style} R@5"] = _recall(report, style, "recall@5")
    figures["hard R@5"] = _recall(report, None, "recall@5")
    figures["hard R@1"] = _recall(report, None, "recall@1")
    figures["hard MRR"] = _recall(report, None, "mrr")
    if not sets:
        return _done(label, figures, started)
    dev = evaluate(retriever, sets["dev hard"])
    figures["dev hard R@5"] = _recall(dev, None, "recall@5")
    for name in ("abstracts", "PDFs"):
        found = evaluate(retriever, sets[name])
        figures[f"{name} R@1"] = _recall(found, None, "recall@1")
        figures[f"{name} R@5"] = _recall(found, None, "recall@5")
    figures["named R@5"] = named_recall(retriever, named)
    return _done(label, figures, started)


def _done(label: str, figures: dict[str, float | None], started: float) -> Row:
    seconds = time.perf_counter() - started
    shown = ", ".join(f"{k} {v:.3f}" for k, v in figures.items() if v is not None)
    print(f"{label}: {shown} ({seconds:.0f}s)", flush=True)
    return Row(label, figures, seconds)


def _chosen(names: Sequence[str]) -> RetrievalConfig:
    """The levers named (by their row labels' first word) together."""
    config = RetrievalConfig()
    for label, lever in LEVERS[1:]:
        if any(label.startswith(n) for n in names):
            config = replace(
                config,
                rm3=lever.rm3 if lever.rm3.terms else config.rm3,
                style=lever.style if lever.style.enabled else config.style,
                expansion=replace(
                    config.expansion,
                    all_names=config.expansion.all_names or lever.expansion.all_names,
                    cooccurring=max(config.expansion.cooccurring, lever.expansion.cooccurring),
                ),
            )
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_dir_option(parser)
    parser.add_argument("--models-cache", type=Path, default=None)
    parser.add_argument("--adapted-data-dir", type=Path, default=None)
    parser.add_argument("--adapted-model", type=Path, default=None)
    parser.add_argument("--split", choices=["test", "tune", "all"], default="test")
    parser.add_argument(
        "--with-levers",
        nargs="*",
        default=[],
        help="Row labels' starts of levers measured with the adapted model too.",
    )
    parser.add_argument(
        "--levers",
        nargs="*",
        default=None,
        help="Row labels' starts of the lever rows to measure (default: every row).",
    )
    parser.add_argument("--names", type=int, default=100)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--held-out-only",
        action="store_true",
        help="Only the held-out questions (for choosing recipes on the tune half).",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    index_at(args.data_dir)
    base = Wiring(Settings(data_dir=args.data_dir, models_cache=args.models_cache))
    held = [
        q for q in load_questions(HELD_OUT) if args.split == "all" or split_of(q.qid) == args.split
    ]
    sets = {
        "dev hard": load_questions(EVAL / "questions-hard.jsonl"),
        "abstracts": load_questions(EVAL / "questions-abstracts.jsonl"),
        "PDFs": load_questions(EVAL / "questions-pdfs.jsonl"),
    }
    if args.held_out_only:
        sets = {}
    named = dev_set(base, args.names, args.seed) if sets else []
    stats = base.catalog.stats()
    print(f"command: {results.command('adaptation')}")
    print(f"index: {stats['papers']} papers, {stats['chunks']} chunks; {len(held)} held-out")
    base.retriever.retrieve("warm up")
    levers = [
        (label, config)
        for label, config in LEVERS
        if args.levers is None or any(label.startswith(start) for start in args.levers)
    ]
    rows = [measure(label, base.retriever.with_config(c), held, sets, named) for label, c in levers]
    card: dict[str, Any] = {}
    if args.adapted_data_dir is not None and args.adapted_model is not None:
        card = json.loads((args.adapted_model / "card.json").read_text(encoding="utf-8"))
        adapted = Wiring(
            Settings(
                data_dir=args.adapted_data_dir,
                models_cache=args.models_cache,
                embedder_model=args.adapted_model,
            )
        )
        adapted.retriever.retrieve("warm up")
        rows.append(measure("adapted embedder", adapted.retriever, held, sets, named))
        if args.with_levers:
            config = _chosen(args.with_levers)
            label = f"adapted embedder with {', '.join(args.with_levers)}"
            rows.append(measure(label, adapted.retriever.with_config(config), held, sets, named))
        adapted.close()
    base.close()
    columns = ["retrieval", *rows[0].figures, "seconds"]
    table = results.table(
        f"recall of the gold paper (held-out hard questions: {args.split} half)",
        columns,
        [[r.label, *r.figures.values(), r.seconds] for r in rows],
        {**dict.fromkeys(columns[1:-1], ".3f"), "seconds": ".0f"},
    )
    tables = [table]
    if card:
        training = card["training"]
        tables.append(
            results.figures(
                "the adapted embedder",
                {
                    "model": card["name"],
                    "pairs": sum(card["data"]["pairs"].values()),
                    "training steps": training["steps"],
                    "training seconds": training["seconds"],
                    "pairs seen": training["pairs_seen"],
                    "int8 ONNX MB": card["onnx_int8"]["bytes"] / 1e6,
                },
                {"training seconds": ".0f", "int8 ONNX MB": ".1f"},
            )
        )
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=2))
    results.record(
        "adaptation",
        tables,
        about=__doc__,
        settings={**vars(args), "index": stats, "held_out_questions": len(held)},
        setup=results.index_setup(stats, args.data_dir),
    )


if __name__ == "__main__":
    main()
