"""Retrieval and answer quality on the development questions, over an existing index.

For each questions file: recall@1/5/10 and MRR of the gold paper for dense,
BM25 and hybrid retrieval (overall and by question type), the gold page among
the chunks given to the answerer (PDF questions), retrieval latency, the
extractive answers' hit rate on the gold `answer_terms`, and how often the
relevance policy refuses unanswerable and answerable questions.

    python -m bench.retrieval --data-dir /path/to/full/index

With `--reranker-url` (and `--reranker-api`, `--reranker-model`,
`--rerank-depth`) a reranking model's server reorders the fused candidates,
as `PAPERCHAT_RERANKER_URL` does in the service; the requests that failed are
counted at the end.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chat.rag.extractive.answerer import extract_answer
from chat.rag.retrieval.evaluation import evaluate, load_questions, table
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from chat.settings import Settings
from chat.wiring import Wiring

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "data" / "eval"
FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl", "questions-hard.jsonl")


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
    print(f"command: python -m bench.retrieval {' '.join(shlex.quote(a) for a in sys.argv[1:])}")
    stats = index.catalog.stats()
    print(f"index: {stats['papers']} papers, {stats['chunks']} chunks")
    reports: dict[str, Any] = {}
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


if __name__ == "__main__":
    main()
