"""Retrieval quality on questions with a gold paper: dense, BM25 and hybrid in one run.

The gold paper's rank is its rank among distinct papers. Questions with a
null `gold_id` are unanswerable: they are left out of recall and MRR and
counted apart. Questions with a gold `page` also get "gold page in the
chunks given to the answerer".
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.retriever import Retriever

RETRIEVERS = ("dense", "bm25", "hybrid")


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    gold_id: str | None
    type: str
    page: int | None = None


def load_questions(path: Path) -> list[Question]:
    questions = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                questions.append(
                    Question(
                        row["qid"],
                        row["question"],
                        row.get("gold_id"),
                        row.get("type") or "pdf",
                        row.get("page"),
                    )
                )
    return questions


@dataclass
class Outcome:
    """One question answered by one retriever."""

    rank: int | None  # of the gold paper among distinct papers, 1-based
    page_hit: bool | None  # gold page among the chunks for the answerer


def judge(question: Question, retrieved: Retrieved, name: str, retriever: Retriever) -> Outcome:
    """Where one retriever ranked the gold paper, and whether the answerer got its page."""
    ordered = retrieved.ranked_by("lexical" if name == "bm25" else name)
    papers = list(dict.fromkeys(c.paper_id for c in ordered))
    rank = papers.index(question.gold_id) + 1 if question.gold_id in papers else None
    page_hit = None
    if question.page is not None:
        chosen = retriever.config.choose(ordered, scoped=bool(retrieved.scoped_to))
        gold = [c.chunk_id for c in chosen if c.paper_id == question.gold_id]
        rows = retriever.catalog.chunk_rows(gold).values()
        page_hit = any(r.page_start <= question.page <= r.page_end for r in rows)
    return Outcome(rank, page_hit)


def summarise(outcomes: Sequence[Outcome]) -> dict[str, float]:
    n = len(outcomes)
    if n == 0:
        return {}
    ranks = [o.rank for o in outcomes]
    summary = {
        f"recall@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in (1, 5, 10)
    }
    summary["mrr"] = sum(1 / r for r in ranks if r is not None) / n
    pages = [o.page_hit for o in outcomes if o.page_hit is not None]
    if pages:
        summary["gold_page@k"] = sum(pages) / len(pages)
    return {key: round(value, 4) for key, value in summary.items()}


def evaluate(retriever: Retriever, questions: Iterable[Question]) -> dict[str, Any]:
    """Recall@1/5/10 and MRR per retriever, overall and by question type, and latency."""
    by_type: dict[str, dict[str, list[Outcome]]] = defaultdict(lambda: defaultdict(list))
    latencies: list[float] = []
    unanswerable = 0
    for question in questions:
        if question.gold_id is None:
            unanswerable += 1
            continue
        gold = retriever.catalog.resolve_id(question.gold_id) or question.gold_id
        question = dataclasses.replace(question, gold_id=gold)
        retrieved = retriever.retrieve(question.question)
        latencies.append(retrieved.timings["retrieval_ms"])
        for name in RETRIEVERS:
            outcome = judge(question, retrieved, name, retriever)
            by_type["all"][name].append(outcome)
            by_type[question.type][name].append(outcome)
    report: dict[str, Any] = {"questions": len(latencies), "unanswerable": unanswerable}
    for name in RETRIEVERS:
        report[name] = summarise(by_type["all"][name])
    report["by_type"] = {
        kind: {name: summarise(outcomes[name]) for name in RETRIEVERS}
        for kind, outcomes in sorted(by_type.items())
        if kind != "all"
    }
    report["latency_ms"] = _percentiles(latencies)
    return report


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    p50, p95 = percentile(values, 50), percentile(values, 95)
    return {"p50": round(p50 or 0.0, 1), "p95": round(p95 or 0.0, 1)}


def percentile(values: Sequence[float], q: float) -> float | None:
    """The `q`-th percentile (0-100) by linear interpolation; None without values."""
    if not values:
        return None
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def table(report: dict[str, Any]) -> str:
    """The report as markdown tables: overall, then by question type."""
    lines = ["| retriever | R@1 | R@5 | R@10 | MRR | gold page |", "|---|---|---|---|---|---|"]
    by_type = report["by_type"]
    rows = [("all", report), *(by_type.items() if len(by_type) > 1 else [])]
    for kind, block in rows:
        for name in RETRIEVERS:
            s = block[name]
            page = f"{s['gold_page@k']:.3f}" if "gold_page@k" in s else ""
            label = name if kind == "all" else f"{kind}: {name}"
            lines.append(
                f"| {label} | {s['recall@1']:.3f} | {s['recall@5']:.3f} | {s['recall@10']:.3f}"
                f" | {s['mrr']:.3f} | {page} |"
            )
    latency = report["latency_ms"]
    lines.append("")
    lines.append(
        f"{report['questions']} questions ({report['unanswerable']} unanswerable left out); "
        f"retrieval latency p50 {latency['p50']} ms, p95 {latency['p95']} ms"
    )
    return "\n".join(lines)
