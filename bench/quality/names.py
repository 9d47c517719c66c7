"""Questions about named methods and acronyms, and everyday questions, over an existing index.

The named questions are made from the corpus itself, by a rule of this
benchmark's own (simpler than the index's mining, so the set does not
merely echo it): an acronym printed in parentheses right after words whose
initials spell it ("Fusion-in-Decoder (FiD)"), or a case-marked name before
a title's colon ("FlashAttention: ..."), defined by exactly one paper of the
abstracts file and the index's PDFs, and that paper in the index. Each name
is asked in several phrasings; the defining paper is the gold one. The
everyday questions (`bench/data/everyday.txt`) have no answer in the index.

Reports recall@1/@5 of the defining paper (distinct papers, hybrid), how
often the long form is in the extractive answer of "stand for" and "what
is" questions, refusals of named and of everyday questions, and retrieval
latency.

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.names [--data-dir .cache/dev-index]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at
from chat.rag.extractive.answerer import extract_answer
from chat.rag.names.printing import name_parts
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.settings import Settings
from chat.wiring import Wiring

ROOT = Path(__file__).resolve().parents[2]
ABSTRACTS = ROOT.parent / "shared" / "data" / "arxiv" / "abstracts.jsonl.gz"
EVERYDAY = ROOT / "bench" / "data" / "everyday.txt"
PHRASINGS = {
    "stand_for": "What does {name} stand for?",
    "what_is": "what is {name}",
    "results": "{name} results",
    "how": "How does {name} work?",
}
# The name as people type it in a search box, all in lower case, and a name joined from
# words typed as those words ("flash attention"): reported apart from "all", since a
# lower-case name may be a word ("zero") or another name ("fid" is FID too).
TYPED = {"lower": "what is {lower}", "apart": "what is {apart}"}
_ACRONYM_RE = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,11})\)")
_TITLE_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]{1,30})\s*:\s")
_MINOR = frozenset({"in", "of", "and", "for", "the", "to", "a", "on", "with"})


@dataclass(frozen=True)
class Named:
    name: str
    long_form: str  # "" for a title's name
    paper_id: str


def _case_marked(token: str) -> bool:
    capitals = sum(c.isupper() for c in token)
    return capitals >= 2 or (capitals == 1 and not token[0].isupper())


def _initials(word: str) -> str:
    """The capitals a word gives an acronym: each hyphenated part's, minor words skipped."""
    parts = word.strip(",;:").split("-")
    return "".join(p[0].upper() for p in parts if p and p[0].isalpha() and p.lower() not in _MINOR)


def acronyms(text: str) -> Iterator[tuple[str, str]]:
    """(acronym, long form) where the words before "(ACR)" start with its capitals."""
    for match in _ACRONYM_RE.finditer(text):
        short = match.group(1)
        letters = "".join(c for c in short if c.isupper())
        if len(letters) < 2 or not _case_marked(short):
            continue
        words = text[: match.start()].split()[-(len(letters) + 3) :]
        for start in range(len(words) - 1, -1, -1):
            spelled = "".join(_initials(w) for w in words[start:])
            if len(spelled) >= len(letters):
                if spelled == letters:
                    yield short, " ".join(words[start:]).strip(",;:")
                break


def title_name(title: str) -> str | None:
    match = _TITLE_RE.match(" ".join(title.split()))
    if match is None or not _case_marked(match.group(1)):
        return None
    return match.group(1)


def typed_apart_form(name: str) -> str:
    """The name as a person would type it apart ("flash attention", "graph rag"), or ""
    for a name nobody types so ("ZeRO" as "ze ro", "L2COcc"): two or three parts of
    letters, each a word of three letters or more or an acronym."""
    parts = name_parts(name)
    if not 2 <= len(parts) <= 3:
        return ""
    at = 0
    for part in parts:
        printed = name[at : at + len(part)]
        at += len(part)
        if not printed.isalpha() or (len(printed) < 3 and not printed.isupper()):
            return ""
    return " ".join(parts)


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def mine(papers: Iterable[tuple[str, str, str]]) -> dict[str, list[Named]]:
    """Every name with the papers defining it, from (paper id, title, text) triples."""
    defined: dict[str, dict[str, Named]] = defaultdict(dict)
    for paper_id, title, text in papers:
        flat = " ".join(f"{title}. {text}".split())
        named = title_name(title)
        if named is not None:
            defined[named].setdefault(paper_id, Named(named, "", paper_id))
        for short, long_form in acronyms(flat):
            found = defined[short].get(paper_id)
            if found is None or not found.long_form:
                defined[short][paper_id] = Named(short, long_form, paper_id)
    return {name: list(by_paper.values()) for name, by_paper in defined.items()}


def dev_set(index: Wiring, names: int, seed: int) -> list[dict[str, Any]]:
    """Named questions whose one defining paper is in the index."""
    catalog = index.catalog
    with_fulltext = [
        str(r[0])
        for r in catalog.db.execute("SELECT id FROM papers WHERE fulltext_hash IS NOT NULL")
    ]

    def texts() -> Iterator[tuple[str, str, str]]:
        for record in _records(ABSTRACTS):
            yield record["id"], record["title"], record["abstract"]
        for paper_id in with_fulltext:
            paper = catalog.get_paper(paper_id)
            chunks = catalog.unit_chunks(paper_id, "fulltext")
            body = " ".join(c.text for c in chunks)
            yield (
                paper_id,
                paper.title if paper else "",
                f"{paper.abstract if paper else ''} {body}",
            )

    mined = mine(texts())
    single = [found[0] for found in mined.values() if len(found) == 1]
    present = [n for n in single if catalog.get_paper(n.paper_id) is not None]
    present.sort(key=lambda n: (n.name, n.paper_id))
    chosen = random.Random(seed).sample(present, min(names, len(present)))
    rows = []
    for named in sorted(chosen, key=lambda n: n.name):
        apart = typed_apart_form(named.name)
        for kind, template in {**PHRASINGS, **TYPED}.items():
            if kind == "apart" and not apart:
                continue  # only a name joined from words ("FlashAttention") is typed apart
            question = template.format(name=named.name, lower=named.name.lower(), apart=apart)
            rows.append(
                {"question": question, "kind": kind, "gold_id": named.paper_id,
                 "name": named.name, "long_form": named.long_form}
            )  # fmt: skip
    return rows


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * share
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def run(index: Wiring, rows: list[dict[str, Any]], everyday: list[str]) -> dict[str, Any]:
    retriever = index.retriever
    policy = RelevancePolicy()
    ranks: dict[str, list[int | None]] = defaultdict(list)
    refused_named: list[bool] = []
    typed_refused: list[bool] = []
    long_form_hits: list[bool] = []
    latency: list[float] = []
    misses = []
    for row in rows:
        retrieved = retriever.retrieve(row["question"])
        latency.append(retrieved.timings["retrieval_ms"])
        papers = retrieved.paper_ranking()
        rank = papers.index(row["gold_id"]) + 1 if row["gold_id"] in papers else None
        ranks[row["kind"]].append(rank)
        refused = not policy.is_relevant(retrieved)
        if row["kind"] in TYPED:
            typed_refused.append(refused)
            continue
        ranks["all"].append(rank)
        refused_named.append(refused)
        if rank is None or rank > 5 or refused:
            misses.append((row["question"], row["gold_id"], rank, refused))
        if row["kind"] in ("stand_for", "what_is") and row["long_form"] and not refused:
            answer = " ".join(extract_answer(row["question"], retrieved.sources)).lower()
            long_form_hits.append(
                " ".join(row["long_form"].lower().split()) in " ".join(answer.split())
            )
    refused_everyday = []
    for question in everyday:
        retrieved = retriever.retrieve(question)
        latency.append(retrieved.timings["retrieval_ms"])
        refused_everyday.append(not policy.is_relevant(retrieved))
    return {
        "questions": len(rows),
        "names": len({r["name"] for r in rows}),
        "recall": {
            kind: {
                "recall@1": sum(1 for r in found if r is not None and r <= 1) / len(found),
                "recall@5": sum(1 for r in found if r is not None and r <= 5) / len(found),
                "n": len(found),
            }
            for kind in [*PHRASINGS, "all", *TYPED]
            if (found := ranks.get(kind))
        },
        "long_form_in_answer": sum(long_form_hits) / max(len(long_form_hits), 1),
        "long_form_questions": len(long_form_hits),
        "refused_named": [sum(refused_named), len(refused_named)],
        "refused_typed": [sum(typed_refused), len(typed_refused)],
        "refused_everyday": [sum(refused_everyday), len(refused_everyday)],
        "everyday_answered": [q for q, r in zip(everyday, refused_everyday, strict=True) if not r],
        "latency_ms": {"p50": _percentile(latency, 0.5), "p95": _percentile(latency, 0.95)},
        "misses": misses,
    }


def _print(report: dict[str, Any]) -> None:
    print(f"named questions: {report['questions']} ({report['names']} names)\n")
    print("| questions | n | R@1 | R@5 |")
    print("|---|---|---|---|")
    for kind, found in report["recall"].items():
        print(f"| {kind} | {found['n']} | {found['recall@1']:.3f} | {found['recall@5']:.3f} |")
    named, everyday = report["refused_named"], report["refused_everyday"]
    latency = report["latency_ms"]
    print(
        f"\nlong form in the extractive answer: {report['long_form_in_answer']:.3f} "
        f"of {report['long_form_questions']}; refused: named {named[0]}/{named[1]} "
        f"({named[0] / max(named[1], 1):.3f}), everyday {everyday[0]}/{everyday[1]} "
        f"({everyday[0] / max(everyday[1], 1):.3f}); retrieval p50 {latency['p50']:.1f} ms, "
        f"p95 {latency['p95']:.1f} ms"
    )
    typed = report["refused_typed"]
    if typed[1]:
        print(
            f"typed as people type ({'; '.join(TYPED.values())}; not in 'all'): "
            f"refused {typed[0]}/{typed[1]}"
        )
    if report["everyday_answered"]:
        print("everyday questions answered:", "; ".join(report["everyday_answered"]))


def result_tables(report: dict[str, Any]) -> list[results.Table]:
    """The printed figures: recall by phrasing, then the answers, refusals and latency."""
    rows = [
        [kind, found["n"], found["recall@1"], found["recall@5"]]
        for kind, found in report["recall"].items()
    ]
    recall = results.table(
        "recall of the defining paper", ["questions", "n", "R@1", "R@5"], rows,
        {"R@1": ".3f", "R@5": ".3f"},
    )  # fmt: skip
    line = results.figures(
        "answers, refusals and latency",
        {
            "long form in the extractive answer": report["long_form_in_answer"],
            "questions judged for the long form": report["long_form_questions"],
            "refused: named": report["refused_named"],
            "refused: everyday": report["refused_everyday"],
            "refused: typed as people type": report["refused_typed"],
            "retrieval latency p50 ms": report["latency_ms"]["p50"],
            "retrieval latency p95 ms": report["latency_ms"]["p95"],
            "everyday questions answered": "; ".join(report["everyday_answered"]) or None,
        },
        {
            "long form in the extractive answer": ".3f",
            "retrieval latency p50 ms": ".1f",
            "retrieval latency p95 ms": ".1f",
        },
    )
    return [recall, line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_dir_option(parser)
    parser.add_argument("--models-cache", type=Path, default=None)
    parser.add_argument("--names", type=int, default=100, help="Names sampled for questions.")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--questions", type=Path, help="Reuse (or write, when missing) the set.")
    parser.add_argument("--json", type=Path, help="Also write the report here.")
    args = parser.parse_args()
    index_at(args.data_dir)
    index = Wiring(Settings(data_dir=args.data_dir, models_cache=args.models_cache))
    print(f"command: {results.command('names')}")
    stats = index.catalog.stats()
    print(f"index: {stats['papers']} papers, {stats['chunks']} chunks")
    if args.questions is not None and args.questions.exists():
        rows = [json.loads(line) for line in args.questions.read_text().splitlines() if line]
    else:
        rows = dev_set(index, args.names, args.seed)
        if args.questions is not None:
            args.questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    everyday = [
        line.strip()
        for line in EVERYDAY.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    index.retriever.retrieve("warm up")
    report = run(index, rows, everyday)
    _print(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    index.close()
    results.record(
        "names",
        result_tables(report),
        about=__doc__,
        settings={**vars(args), "index": stats, "questions_asked": len(rows)},
        setup=results.index_setup(stats, args.data_dir),
    )


if __name__ == "__main__":
    main()
