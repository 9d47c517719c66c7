"""Retrieval and answer quality on the development questions, over an existing index.

For each questions file: recall@1/5/10 and MRR of the gold paper for dense,
BM25 and hybrid retrieval (overall and by question type), the gold page among
the chunks given to the answerer (PDF questions), retrieval latency, the
extractive answers' hit rate on the gold `answer_terms`, and how often the
relevance policy refuses unanswerable and answerable questions.

    python -m bench.quality.retrieval --data-dir /path/to/full/index

With `--reranker-url` (and `--reranker-api`, `--reranker-model`,
`--rerank-depth`) a reranking model's server reorders the fused candidates,
as `PAPERCHAT_RERANKER_URL` does in the service; the requests that failed are
counted at the end.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import results
from chat.rag.extractive.answerer import extract_answer
from chat.rag.retrieval.evaluation import RETRIEVERS, evaluate, load_questions, table
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from chat.settings import Settings
from chat.wiring import Wiring

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "data" / "eval"
FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl", "questions-hard.jsonl")
# The figures of `evaluation.summarise`, in the printed table's order.
SUMMARY_KEYS = ("recall@1", "recall@5", "recall@10", "mrr", "gold_page@k")


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
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--files", nargs="*", default=list(FILES))
    parser.add_argument("--json", type=Path, help="Also write the reports here.")
    parser.add_argument("--reranker-url", default="")
    parser.add_argument("--reranker-api", choices=["auto", "rerank", "tei"], default="auto")
    parser.add_argument("--reranker-model", default="")
    parser.add_argument("--rerank-depth", type=int, default=50)
    args = parser.parse_args()
    settings = Settings(
        data_dir=args.data_dir,
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
        setup=results.index_setup(stats),
    )


if __name__ == "__main__":
    main()
