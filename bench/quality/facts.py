"""Whether the product's answers state the fact asked and cite the paper it comes from.

The questions (bench/data/facts.jsonl) were written from the papers: facts (numbers,
names, datasets, scores, sizes) read from the 38 PDFs' pages, who/when facts read
from the catalog's records, and two-turn follow-ups ("What is RETRO?", then "and how
big is its retrieval database?"). Every row carries the page and the sentence or
table cell its gold answer comes from. Every third row by qid order (f003, f006, ...)
is held out: nobody tunes the answers on it.

Each question goes through the service's answer path as the service wires it
(`Wiring.answerer`, extractive mode when no model is configured): the streamed text
and the `done` event's citations are read. A follow-up is asked with the first
turn's question and the answer the same answerer gave to it as its history. An
answer holds the fact when, for every group of `answer_terms`, one of the group's
strings occurs in it (case-insensitively, citations aside).

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.facts [--data-dir .cache/dev-index] [--show KIND] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at

QUESTIONS = Path(__file__).resolve().parents[1] / "data" / "facts.jsonl"
KINDS = ("fact", "who_when", "follow_up")
SPLITS = ("dev", "held_out", "all")
GOALS = {"fact": 0.8, "who_when": 0.9, "follow_up": 0.8}
UNRELATED_GOAL = 0.5
_CITATION = re.compile(r"\[(?:arXiv|doc):[^\]]+\]")


@dataclass(frozen=True)
class Reply:
    """What one answer said and cited, and whether it declined."""

    text: str
    citations: tuple[str, ...]
    refused: bool


def read_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def held_out(qid: str) -> bool:
    """The documented rule: every third question by qid number (f003, l006) is held out."""
    return int(re.sub(r"\D", "", qid)) % 3 == 0


def _normal(text: str) -> str:
    return " ".join(_CITATION.sub(" ", text).lower().split())


def has_fact(text: str, answer_terms: Sequence[Sequence[str]]) -> bool:
    """Whether every group of alternatives has one of its strings in the answer."""
    said = _normal(text)
    return all(any(_normal(term) in said for term in group) for group in answer_terms)


def cited_id(citation: str) -> str:
    """The paper id of a citation ('arXiv:2007.01282v2' or '2007.01282' -> '2007.01282')."""
    bare = citation.strip("[]").split(":", 1)[-1]
    return re.sub(r"v\d+$", "", bare)


def score(reply: Reply, row: dict[str, Any]) -> dict[str, float]:
    """One answer's figures: the fact, the gold citation, both, unrelated papers, refusal."""
    cited = {cited_id(c) for c in reply.citations}
    fact = has_fact(reply.text, row["answer_terms"])
    cites = row["gold_id"] in cited
    return {
        "fact and citation": float(fact and cites),
        "fact": float(fact),
        "cites gold": float(cites),
        "unrelated cited": float(len(cited - {row["gold_id"]})),
        "refused": float(reply.refused),
    }


async def ask(answerer: Any, text: str, history: Sequence[tuple[str, str]]) -> Reply:
    """The answer to `text` after the (role, content) turns of `history`, as streamed."""
    from chat.rag.answer.answering import Question, Turn
    from chat.rag.answer.events import Delta, Done

    turns = tuple(Turn(role, content) for role, content in history)
    pieces: list[str] = []
    citations: tuple[str, ...] = ()
    refused = False
    async for event in answerer.answer(Question(text, turns)):
        if isinstance(event, Delta):
            pieces.append(event.text)
        elif isinstance(event, Done):
            citations, refused = event.citations, event.refused
    return Reply("".join(pieces), citations, refused)


async def answer_row(answerer: Any, row: dict[str, Any]) -> Reply:
    """A row's answer; a follow-up's earlier questions are answered first, as a user would."""
    history: list[tuple[str, str]] = []
    for earlier in row["history"]:
        first = await ask(answerer, earlier, history)
        history += [("user", earlier), ("assistant", first.text)]
    return await ask(answerer, row["question"], history)


async def answer_all(answerer: Any, rows: Sequence[dict[str, Any]]) -> list[Reply]:
    """Every row's answer, in one event loop as the service answers them."""
    return [await answer_row(answerer, row) for row in rows]


def summary(scored: Sequence[dict[str, float]]) -> dict[str, float]:
    n = max(len(scored), 1)
    keys = ("fact and citation", "fact", "cites gold", "unrelated cited", "refused")
    return {"questions": len(scored), **{k: sum(s[k] for s in scored) / n for k in keys}}


def show(row: dict[str, Any], reply: Reply, figures: dict[str, float]) -> None:
    verdict = "PASS" if figures["fact and citation"] else "FAIL"
    print(f"\n[{verdict}] {row['qid']} {row['kind']} gold {row['gold_id']}")
    for earlier in row["history"]:
        print(f"  (before) {earlier}")
    print(f"  Q: {row['question']}\n  want: {row['answer_terms']}")
    print(f"  cited: {', '.join(reply.citations) or '-'}{' (refused)' if reply.refused else ''}")
    print("  A: " + " ".join(reply.text.split())[:400])


def table_rows(
    rows: Sequence[dict[str, Any]], scored: Sequence[dict[str, float]]
) -> list[list[results.Cell]]:
    columns = ("questions", "fact and citation", "fact", "cites gold", "unrelated cited", "refused")
    out: list[list[results.Cell]] = []
    for kind in (*KINDS, "all"):
        for split in SPLITS:
            chosen = [
                s
                for r, s in zip(rows, scored, strict=True)
                if kind in ("all", r["kind"]) and split in ("all", r["split"])
            ]
            figures = summary(chosen)
            goal = GOALS.get(kind)
            out.append([kind, split, *(figures[c] for c in columns), goal])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_dir_option(parser)
    parser.add_argument("--show", choices=KINDS, help="Print each question of this kind.")
    parser.add_argument("--verbose", action="store_true", help="Print every question.")
    args = parser.parse_args()
    index_at(args.data_dir)
    from chat.settings import Settings
    from chat.wiring import Wiring

    wiring = Wiring(Settings(data_dir=args.data_dir))
    answerer = wiring.answerer
    rows = read_questions()
    replies = asyncio.run(answer_all(answerer, rows))
    scored = [score(reply, row) for reply, row in zip(replies, rows, strict=True)]
    for row, reply, figures in zip(rows, replies, scored, strict=True):
        if args.verbose or args.show == row["kind"]:
            show(row, reply, figures)
    columns = ["kind", "split", "questions", "fact and citation", "fact", "cites gold",
               "unrelated cited", "refused", "goal"]  # fmt: skip
    body = table_rows(rows, scored)
    print("\n| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for cells in body:
        shown = [c if isinstance(c, str) else "-" if c is None else f"{c:.3g}" for c in cells]
        print("| " + " | ".join(shown) + " |")
    print(f"goals: fact and citation >= {GOALS}; unrelated cited <= {UNRELATED_GOAL} per answer")
    formats = dict.fromkeys(columns[3:9], ".3f")
    stats = wiring.catalog.stats()
    results.record(
        "facts",
        [results.table("facts in the answers", columns, body, formats, key_columns=2)],
        about=__doc__,
        settings={**vars(args), "mode": answerer.mode, "index": stats},
        setup=results.index_setup(stats, args.data_dir),
        notes=f"goals: {GOALS} (fact and citation); unrelated cited <= {UNRELATED_GOAL}",
    )
    wiring.close()


if __name__ == "__main__":
    main()
