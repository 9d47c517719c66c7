"""Whether answers over the whole library state what was asked and cite the right papers, by kind.

The questions (bench/data/library.jsonl) were written from the papers and the catalog:
facts read in the 38 PDFs' text and tables (`fact`), authors, dates and categories
read from the catalog's records, of PDFs and abstracts alike (`who_when`), the long
forms of acronyms a paper defines (`definition`), two-turn questions whose second turn
leans on the first ("What is REALM?", then "how many retrieval candidates does its
corpus hold?": `follow_up`), two named papers compared (`comparison`), the papers of
the library that cite a paper or that it cites, read from the catalog's reference
lists (`citation_graph`), the paper that introduced a name (`which_paper`), and a
paper's contribution asked in everyday words (`plain`). Each row gives the page and
sentence, or the catalog's record or reference entry, its answer comes from. Every
third row by qid (l003, l006, ...) is held out: nobody tunes the answers on it.

Each question is answered as the facts benchmark answers its own (`bench.quality.facts`:
the service's answerer, extractive when no model is configured, a follow-up after the
answer to its first turn). An answer is right when it states the fact (every group of
`answer_terms` has one of its strings in the text) and cites every gold paper; a
citation-graph answer is right when it names or cites at least half of the gold papers
(its recall). Also counted: the answers that state the fact in their opening, the text
through the first citation that closes a sentence (`leads`: the fact asked, first,
rather than somewhere in the answer; an answer over several papers, which states each
one's fact, leads when it states them), the papers an answer cites that are not gold
("other cited", per answer; a citation-graph answer citing the paper asked about,
`about`, is not counted for it) and the answers that declined.

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.library [--data-dir .cache/dev-index] [--show KIND] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at
from bench.quality.facts import Reply, answer_all, cited_id, has_fact, read_questions
from chat.rag.citations.guard import CITATION_PATTERN

QUESTIONS = Path(__file__).resolve().parents[1] / "data" / "library.jsonl"
KINDS = (
    "fact", "who_when", "definition", "follow_up",
    "comparison", "citation_graph", "which_paper", "plain",
)  # fmt: skip
SPLITS = ("dev", "held_out", "all")
# The share of right answers each kind should reach; plain questions have no goal yet.
GOALS: dict[str, float | None] = {
    "fact": 0.85, "who_when": 0.95, "definition": 0.85, "follow_up": 0.85,
    "comparison": 0.75, "citation_graph": 0.75, "which_paper": 0.75, "plain": None,
}  # fmt: skip
OTHER_CITED_GOAL = 0.3  # papers cited per answer that are not gold, at most
# A citation-graph answer is right when it names this share of the gold papers.
GRAPH_RECALL = 0.5
COLUMNS = ("questions", "right", "fact", "leads", "gold recall", "other cited", "refused")
_CITATION = re.compile(CITATION_PATTERN)
# After a citation that closes its sentence: the end, a line, or the next sentence.
_CLOSES = re.compile(r"[.!?]?(?:\s*$|\s*\n|\s+[^a-z\s])")


def gold_of(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The paper or papers a row's answer should cite."""
    return tuple(row.get("gold_ids") or [row["gold_id"]])


def named(reply: Reply, papers: Iterable[str], titles: Mapping[str, str]) -> set[str]:
    """Which of `papers` an answer cites, or names by id or by title (`titles`) in its text."""
    cited = {cited_id(c) for c in reply.citations}
    text = " ".join(reply.text.lower().split())
    found = set()
    for paper in papers:
        title = " ".join(titles.get(paper, "").lower().split())
        by_id = re.search(rf"(?<![\d.]){re.escape(paper)}(?!\d)", text)
        if paper in cited or by_id or (title and title in text):
            found.add(paper)
    return found


def opening(text: str) -> str:
    """What an answer says first: its text through the first citation that closes a
    sentence (its first cited claim and whatever framed it; "Title [arXiv:...] is by ..."
    cites the title within its sentence), all of it when no citation closes one."""
    for mark in _CITATION.finditer(text):
        if _CLOSES.match(text, mark.end()):
            return text[: mark.end()]
    return text


def score(reply: Reply, row: Mapping[str, Any], titles: Mapping[str, str]) -> dict[str, float]:
    """One answer's figures. `titles` maps the gold papers to their titles."""
    gold = set(gold_of(row))
    cited = {cited_id(c) for c in reply.citations}
    asked = {row["about"]} if row.get("about") else set()
    found = named(reply, gold, titles) if row["kind"] == "citation_graph" else gold & cited
    recall = len(found) / len(gold)
    fact = has_fact(reply.text, row["answer_terms"])
    right = recall >= GRAPH_RECALL if row["kind"] == "citation_graph" else fact and recall == 1
    return {
        "right": float(right),
        "fact": float(fact),
        "leads": float(
            fact and (len(gold) > 1 or has_fact(opening(reply.text), row["answer_terms"]))
        ),
        "gold recall": recall,
        "other cited": float(len(cited - gold - asked)),
        "refused": float(reply.refused),
    }


def summary(scored: Sequence[Mapping[str, float]]) -> dict[str, float]:
    n = max(len(scored), 1)
    return {"questions": len(scored), **{k: sum(s[k] for s in scored) / n for k in COLUMNS[1:]}}


def table_rows(
    rows: Sequence[Mapping[str, Any]], scored: Sequence[Mapping[str, float]]
) -> list[list[results.Cell]]:
    """Per kind (and for all), per split: the figures and the kind's goal."""
    out: list[list[results.Cell]] = []
    for kind in (*KINDS, "all"):
        for split in SPLITS:
            chosen = [
                figures
                for row, figures in zip(rows, scored, strict=True)
                if kind in ("all", row["kind"]) and split in ("all", row["split"])
            ]
            if chosen:
                numbers = summary(chosen)
                out.append([kind, split, *(numbers[c] for c in COLUMNS), GOALS.get(kind)])
    return out


def show(row: Mapping[str, Any], reply: Reply, figures: Mapping[str, float]) -> None:
    verdict = "PASS" if figures["right"] else "FAIL"
    recall = f" recall {figures['gold recall']:.2f}" if row["kind"] == "citation_graph" else ""
    print(f"\n[{verdict}] {row['qid']} {row['kind']} gold {', '.join(gold_of(row))}{recall}")
    for earlier in row["history"]:
        print(f"  (before) {earlier}")
    print(f"  Q: {row['question']}\n  want: {row['answer_terms']}")
    refused = " (refused)" if reply.refused else ""
    print(f"  cited: {', '.join(reply.citations) or '-'}{refused}")
    print("  A: " + " ".join(reply.text.split())[:700])


def titles_of(catalog: Any, rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The catalog's title of every gold paper of the citation-graph rows."""
    wanted = {p for r in rows if r["kind"] == "citation_graph" for p in gold_of(r)}
    papers = {p: catalog.get_paper(p) for p in sorted(wanted)}
    return {p: paper.title for p, paper in papers.items() if paper is not None}


def write_log(
    path: Path,
    rows: Sequence[Mapping[str, Any]],
    replies: Sequence[Reply],
    scored: Sequence[Mapping[str, float]],
) -> None:
    """Each question's answer, citations and figures, one JSON object a line."""
    with path.open("w", encoding="utf-8") as out:
        for row, reply, figures in zip(rows, replies, scored, strict=True):
            entry = {"qid": row["qid"], "kind": row["kind"], "question": row["question"],
                     "history": row["history"], "gold": gold_of(row), "text": reply.text,
                     "citations": reply.citations, "refused": reply.refused, **figures}  # fmt: skip
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def print_table(body: Sequence[Sequence[results.Cell]]) -> None:
    columns = ["kind", "split", *COLUMNS, "goal"]
    print("\n| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for cells in body:
        shown = [c if isinstance(c, str) else "-" if c is None else f"{c:.3g}" for c in cells]
        print("| " + " | ".join(shown) + " |")
    print(f"goals: right >= {GOALS}; other cited <= {OTHER_CITED_GOAL} per answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_dir_option(parser)
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="The question file.")
    parser.add_argument("--show", choices=KINDS, help="Print each question of this kind.")
    parser.add_argument("--verbose", action="store_true", help="Print every question.")
    parser.add_argument("--log", type=Path, help="Write every answer to this JSON-lines file.")
    args = parser.parse_args()
    index_at(args.data_dir)
    from chat.settings import Settings
    from chat.wiring import Wiring

    wiring = Wiring(Settings(data_dir=args.data_dir))
    answerer = wiring.answerer
    rows = read_questions(args.questions)
    titles = titles_of(wiring.catalog, rows)
    replies = asyncio.run(answer_all(answerer, rows))
    scored = [score(reply, row, titles) for reply, row in zip(replies, rows, strict=True)]
    for row, reply, figures in zip(rows, replies, scored, strict=True):
        if args.verbose or args.show == row["kind"]:
            show(row, reply, figures)
    if args.log:
        write_log(args.log, rows, replies, scored)
    body = table_rows(rows, scored)
    print_table(body)
    columns = ["kind", "split", *COLUMNS, "goal"]
    formats = dict.fromkeys(columns[3:], ".3f")
    stats = wiring.catalog.stats()
    results.record(
        "library",
        [results.table("answers over the library", columns, body, formats, key_columns=2)],
        about=__doc__,
        settings={**vars(args), "mode": answerer.mode, "index": stats},
        setup=results.index_setup(stats, args.data_dir),
        notes=f"goals: right >= {GOALS}; other cited <= {OTHER_CITED_GOAL} per answer",
    )
    wiring.close()


if __name__ == "__main__":
    main()
