"""Retrieval and answer quality on the development questions, over an existing index.

For each questions file: recall@1/5/10 and MRR of the gold paper for dense,
BM25 and hybrid retrieval (overall and by question type), the gold page among
the chunks given to the answerer (PDF questions), retrieval latency, the
extractive answers' hit rate on the gold `answer_terms`, and how often the
relevance policy refuses unanswerable and answerable questions.

    python -m bench.quality.retrieval [--data-dir .cache/dev-index]

Then each retrieval variant of `VARIANTS` (the levers for questions in
everyday words: WordNet's synonyms in the BM25 query, dense pseudo-relevance
feedback; off, each alone, both, and dense feedback for the questions the style
classifier reads as in everyday words alone) over every question with a gold paper, the
held-out hard questions (`bench/data/hard_heldout.jsonl`) among them: recall
@1/@5 of the hybrid ranking by kind (plain-language, short, messy, abstract,
PDF questions), on the development questions and on the held-out third
(`split_of`, fixed by a hash of the question), and the median retrieval time.
`--split dev` measures the development questions alone, for choosing settings.

With `--reranker-url` (and `--reranker-api`, `--reranker-model`,
`--rerank-depth`) a reranking model's server reorders the fused candidates,
as `PAPERCHAT_RERANKER_URL` does in the service; the requests that failed are
counted at the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bench import results
from bench.dev_index import data_dir_option, index_at
from chat.rag.extractive.answerer import extract_answer
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.evaluation import (
    RETRIEVERS,
    Question,
    evaluate,
    judge,
    load_questions,
    table,
)
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from chat.rag.retrieval.wordnet.database import open_wordnet
from chat.settings import Settings
from chat.wiring import Wiring

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "data" / "eval"
FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl", "questions-hard.jsonl")
HELD_OUT = ROOT / "bench" / "data" / "hard_heldout.jsonl"
# The figures of `evaluation.summarise`, in the printed table's order.
SUMMARY_KEYS = ("recall@1", "recall@5", "recall@10", "mrr", "gold_page@k")


Split = Literal["dev", "held-out"]
# The kinds of question the variants are compared on, by the type a question file gives.
KINDS = {"layman": "plain", "short": "short", "messy": "messy", "pdf": "PDFs"}
KIND_ORDER = ("plain", "short", "messy", "abstracts", "PDFs")
# Each lever for questions in everyday words alone and together, as the settings give
# them otherwise; the first row is both off, the product before them.
SYNONYMS_ON = {"terms": 8, "weight": 0.5}
DENSE_FEEDBACK_ON = {"passages": 3, "weight": 0.5, "layman_share": 0.0}
# Dense feedback for the questions in everyday words alone (`DenseFeedbackConfig.layman_share`).
DENSE_FEEDBACK_LAYMAN = {**DENSE_FEEDBACK_ON, "layman_share": 0.8}
VARIANTS: tuple[tuple[str, dict[str, dict[str, Any]]], ...] = (
    ("levers off", {"synonyms": {"terms": 0}, "dense_feedback": {"passages": 0}}),
    ("WordNet synonyms", {"synonyms": SYNONYMS_ON, "dense_feedback": {"passages": 0}}),
    ("dense feedback", {"synonyms": {"terms": 0}, "dense_feedback": DENSE_FEEDBACK_ON}),
    ("both", {"synonyms": SYNONYMS_ON, "dense_feedback": DENSE_FEEDBACK_ON}),
    (
        "dense feedback, layman only",
        {"synonyms": {"terms": 0}, "dense_feedback": DENSE_FEEDBACK_LAYMAN},
    ),
)


def split_of(question: str) -> Split:
    """The fixed rule: a question whose text's SHA-256 is a multiple of 3 is held out,
    the rest (two thirds) are development questions."""
    digest = hashlib.sha256(question.encode("utf-8")).hexdigest()
    return "held-out" if int(digest, 16) % 3 == 0 else "dev"


def kind_of(question: Question) -> str:
    """plain, short, messy, abstracts or PDFs: the kind a question is compared within."""
    return KINDS.get(question.type, "abstracts")


def variant_config(base: RetrievalConfig, changes: dict[str, dict[str, Any]]) -> RetrievalConfig:
    """`base` with the fields of its nested configs that `changes` names replaced."""
    nested = {
        name: dataclasses.replace(getattr(base, name), **fields) for name, fields in changes.items()
    }
    return dataclasses.replace(base, **nested)


def compare_variants(
    retriever: Retriever, questions: list[Question], splits: tuple[Split, ...]
) -> dict[str, Any]:
    """Per variant: hybrid recall@1/@5 by split and kind, and the median retrieval ms."""
    report: dict[str, Any] = {}
    for label, changes in VARIANTS:
        config = variant_config(retriever.config, changes)
        if config.synonyms.terms and open_wordnet(config.synonyms.wordnet_dir) is None:
            # Without the database the row would repeat "levers off" under another name.
            report[label] = {"skipped": f"no WordNet database in {config.synonyms.wordnet_dir}"}
            continue
        variant = retriever.with_config(config)
        ranks: dict[tuple[str, str], list[int | None]] = {}
        latencies: list[float] = []
        for question in questions:
            split = split_of(question.question)
            if split not in splits:
                continue
            gold = retriever.catalog.resolve_id(question.gold_id or "") or question.gold_id
            asked = dataclasses.replace(question, gold_id=gold)
            retrieved = variant.retrieve(asked.question)
            latencies.append(retrieved.timings["retrieval_ms"])
            rank = judge(asked, retrieved, "hybrid", variant).rank
            ranks.setdefault((split, kind_of(asked)), []).append(rank)
        report[label] = {
            "median_ms": round(statistics.median(latencies), 1) if latencies else None,
            "recall": {
                f"{split} {kind}": {
                    "questions": len(found),
                    "recall@1": _recall_at(found, 1),
                    "recall@5": _recall_at(found, 5),
                }
                for (split, kind), found in sorted(ranks.items())
            },
        }
    return report


def _recall_at(ranks: list[int | None], k: int) -> float:
    return round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 4)


def variants_table(report: dict[str, Any], splits: tuple[Split, ...]) -> results.Table:
    """One row per variant and split: R@1 and R@5 by kind, and the median retrieval ms."""
    columns = ["variant", "split"]
    for kind in KIND_ORDER:
        columns += [f"{kind} R@1", f"{kind} R@5"]
    columns.append("median ms")
    rows = []
    for label, block in report.items():
        if "skipped" in block:
            continue
        for split in splits:
            row: list[Any] = [label, split]
            for kind in KIND_ORDER:
                found = block["recall"].get(f"{split} {kind}", {})
                row += [found.get("recall@1"), found.get("recall@5")]
            rows.append([*row, block["median_ms"]])
    formats = {c: ".3f" for c in columns if "R@" in c} | {"median ms": ".1f"}
    title = "recall of the gold paper by kind: development and held-out questions"
    return results.table(title, columns, rows, formats, key_columns=2)


def printed(shown: results.Table) -> str:
    """A table as markdown, its numbers as its formats print them; "-" where none."""
    lines = [f"| {' | '.join(shown.columns)} |", "|" + "---|" * len(shown.columns)]
    for row in shown.rows:
        cells = []
        for column in shown.columns:
            value = row.get(column)
            spec = shown.formats.get(column, "")
            cells.append("-" if value is None else format(value, spec) if spec else str(value))
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


def counts_line(report: dict[str, Any]) -> str:
    """How many questions each split and kind holds."""
    first = next(iter(report.values()))["recall"]
    return ", ".join(f"{key} {found['questions']}" for key, found in first.items())


@dataclass
class AnswerStats:
    answered: int = 0
    all_terms: int = 0
    any_term: int = 0
    refused: dict[str, list[bool]] = field(default_factory=lambda: {"yes": [], "no": []})


def answer_stats(retriever: Retriever, rows: list[dict[str, Any]]) -> AnswerStats:
    """Extractive answers' term hits, and refusals of unanswerable vs answerable questions."""
    policy = RelevancePolicy()
    stats = AnswerStats()
    for row in rows:
        retrieved = retriever.retrieve(row["question"])
        refused = not policy.is_relevant(retrieved)
        stats.refused["no" if row["gold_id"] is None else "yes"].append(refused)
        if row["gold_id"] is None or not row.get("answer_terms"):
            continue
        answer = " ".join(extract_answer(row["question"], retrieved.sources)).lower()
        hits = [term.lower() in answer for term in row["answer_terms"]]
        stats.answered += 1
        stats.all_terms += all(hits)
        stats.any_term += any(hits)
    return stats


def _rate(values: list[bool]) -> str:
    return f"{sum(values) / len(values):.3f} ({sum(values)}/{len(values)})" if values else "-"


def _count(values: list[bool]) -> list[int | float | None] | None:
    return [sum(values), len(values)] if values else None


def result_tables(name: str, report: dict[str, Any], answers: AnswerStats) -> list[results.Table]:
    """The printed figures of one questions file: recall by retriever, then the line below."""
    rows = []
    by_type = report["by_type"]
    for kind, block in [("all", report), *(by_type.items() if len(by_type) > 1 else [])]:
        for retriever in RETRIEVERS:
            s = block[retriever]
            label = retriever if kind == "all" else f"{kind}: {retriever}"
            rows.append([label, *(s.get(key) for key in SUMMARY_KEYS)])
    columns = ["retriever", "R@1", "R@5", "R@10", "MRR", "gold page"]
    recall = results.table(name, columns, rows, dict.fromkeys(columns[1:], ".3f"))
    answered = max(answers.answered, 1)
    line = results.figures(
        f"{name}: questions, latency, answers and refusals",
        {
            "questions": report["questions"],
            "unanswerable left out": report["unanswerable"],
            "retrieval latency p50 ms": report["latency_ms"]["p50"],
            "retrieval latency p95 ms": report["latency_ms"]["p95"],
            "extractive answers with all gold terms": answers.all_terms / answered,
            "extractive answers with any gold term": answers.any_term / answered,
            "refused: unanswerable": _count(answers.refused["no"]),
            "refused: answerable": _count(answers.refused["yes"]),
        },
        {
            "retrieval latency p50 ms": ".1f",
            "retrieval latency p95 ms": ".1f",
            "extractive answers with all gold terms": ".3f",
            "extractive answers with any gold term": ".3f",
        },
    )
    return [recall, line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_dir_option(parser)
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--files", nargs="*", default=list(FILES))
    parser.add_argument("--json", type=Path, help="Also write the reports here.")
    parser.add_argument("--reranker-url", default="")
    parser.add_argument("--reranker-api", choices=["auto", "rerank", "tei"], default="auto")
    parser.add_argument("--reranker-model", default="")
    parser.add_argument("--rerank-depth", type=int, default=50)
    parser.add_argument(
        "--split",
        choices=["dev", "all"],
        default="all",
        help="the variants on the development questions alone (dev), or on both splits",
    )
    args = parser.parse_args()
    settings = Settings(
        data_dir=index_at(args.data_dir),
        models_cache=args.models_cache,
        reranker_url=args.reranker_url,
        reranker_api=args.reranker_api,
        reranker_model=args.reranker_model,
        rerank_depth=args.rerank_depth,
    )
    index = Wiring(settings)
    retriever = index.retriever
    retriever.retrieve("warm up")
    print(f"command: {results.command('retrieval')}")
    stats = index.catalog.stats()
    print(f"index: {stats['papers']} papers, {stats['chunks']} chunks")
    reports: dict[str, Any] = {}
    tables: list[results.Table] = []
    for name in args.files:
        questions = load_questions(EVAL / name)
        report = evaluate(retriever, questions)
        with (EVAL / name).open(encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines if line.strip()]
        answers = answer_stats(retriever, rows)
        report["answers"] = {
            "extractive_all_terms": answers.all_terms / max(answers.answered, 1),
            "extractive_any_term": answers.any_term / max(answers.answered, 1),
            "refused_unanswerable": _rate(answers.refused["no"]),
            "refused_answerable": _rate(answers.refused["yes"]),
        }
        reports[name] = report
        tables += result_tables(name, report, answers)
        print(f"\n### {name}\n")
        print(table(report))
        print(
            f"extractive answers containing all / any gold answer terms: "
            f"{report['answers']['extractive_all_terms']:.3f} / "
            f"{report['answers']['extractive_any_term']:.3f}; refused: unanswerable "
            f"{report['answers']['refused_unanswerable']}, answerable "
            f"{report['answers']['refused_answerable']}"
        )
    splits: tuple[Split, ...] = ("dev",) if args.split == "dev" else ("dev", "held-out")
    every = [
        q
        for path in [*(EVAL / name for name in args.files), HELD_OUT]
        for q in load_questions(path)
        if q.gold_id is not None
    ]
    reports["variants"] = compare_variants(retriever, every, splits)
    tables.append(variants_table(reports["variants"], splits))
    print(f"\n### {tables[-1].title}\n")
    print(printed(tables[-1]))
    print(f"questions: {counts_line(reports['variants'])}")
    skipped = [
        f"{label}: {b['skipped']}" for label, b in reports["variants"].items() if "skipped" in b
    ]
    for line in skipped:
        print(f"not measured: {line}")
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))
    if index.remote_reranker is not None:
        print(f"\nreranker requests by outcome: {index.remote_reranker.stats.snapshot()}")
    index.close()
    results.record(
        "retrieval",
        tables,
        about=__doc__,
        settings={**vars(args), "index": stats},
        setup=results.index_setup(stats, args.data_dir),
        notes="; ".join(f"not measured, {line}" for line in skipped),
    )


if __name__ == "__main__":
    main()
