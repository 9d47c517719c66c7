"""How often extractive answers to "What does X stand for?" / "What is X?" give X's long form.

The questions are mined from the index's chunks (the PDFs' text and the
abstracts): every acronym printed in parentheses after its long form ("Zero
Redundancy Optimizer (ZeRO)", "Fusion-in-Decoder (FiD)": each word's initial
giving one letter, function words giving one or none) or before it in
parentheses ("DPR (Dense Passage Retriever)"), defined so by exactly one
paper. The acronyms are drawn at random with a fixed seed and split by a hash
of their letters: a third is held out, to be read only to check the rest. For each acronym and
phrasing the sources are the defining paper's best chunks for the question
(plain BM25 over its chunks) mixed with the best chunks of other papers, or,
with --retriever, what the product's retriever returns. Reported: the long
form in the answer, the defining sentence first, a lead line, and the time
per answer.

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.definitions [--data-dir .cache/dev-index] [--sample 200] [--retriever]
        [--split dev|held-out|all]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import results
from bench.dev_index import data_dir_option, index_at
from bench.quality.answers import Index, make_sources, rank_passages
from chat.rag.extractive.answerer import extract_answer
from chat.rag.sources import Source

_CITATION = re.compile(r"\[(?:arXiv|doc):[^\]]+\]")
PHRASINGS = ("What does {} stand for?", "What is {} short for?", "What is {}?")
_ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*s?)\)")
_WORDS_BEFORE = re.compile(r"([^\s()]+(?:\s+[^\s()]+){0,9})\s*$")
_FUNCTION_WORD = re.compile(r"^(?:of|for|from|and|the|in|on|to|a|an|with|by|via)$")

_LONG_FORM_AFTER = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\s\(([^()]{3,80})\)")
SPLITS = ("dev", "held-out")
_HELD_OUT = 3  # one acronym in this many is held out

Sources = Callable[[str, str], list[Source]]


def _initials(phrase: str, function_words: bool = False) -> str:
    """The initials of a phrase's words and hyphenated parts, function words left out
    (or kept: "Fusion-in-Decoder" gives "fid")."""
    parts = [p for p in re.split(r"[\s-]+", phrase) if p]
    if not function_words:
        parts = [p for p in parts if not _FUNCTION_WORD.match(p)]
    return "".join(p[0] for p in parts).lower()


def _spells(phrase: str, acronym: str) -> bool:
    wanted = acronym.lower()
    return _initials(phrase) == wanted or _initials(phrase, function_words=True) == wanted


def split_of(acronym: str) -> str:
    """ "held-out" for one acronym in `_HELD_OUT` (by a hash of its letters), else "dev"."""
    digest = int(hashlib.sha256(acronym.encode()).hexdigest(), 16)
    return SPLITS[1] if digest % _HELD_OUT == 0 else SPLITS[0]


def mined_long_form(text: str, acronym_at: re.Match[str]) -> str:
    """The long form just before a parenthesised acronym whose initials spell it exactly."""
    acronym = (
        acronym_at.group(1).rstrip("s")
        if acronym_at.group(1).endswith("s")
        else acronym_at.group(1)
    )
    words = _WORDS_BEFORE.search(text[: acronym_at.start()])
    if words is None:
        return ""
    tokens = words.group(1).split()
    for count in range(1, len(tokens) + 1):
        phrase = " ".join(tokens[-count:]).strip("\"',;:")
        if _spells(phrase, acronym) and phrase[:1].isalpha():
            return phrase
    return ""


def _long_forms_after(text: str) -> list[tuple[str, str]]:
    """(acronym, long form) for each "DPR (Dense Passage Retriever)" of `text`."""
    found = []
    for match in _LONG_FORM_AFTER.finditer(text):
        acronym, phrase = match.group(1), match.group(2).strip()
        if _spells(phrase, acronym.rstrip("s")) and phrase[:1].isalpha():
            found.append((acronym, phrase))
    return found


def mine(index: Index) -> dict[str, tuple[str, str]]:
    """Acronym -> (its long form, the one paper that defines it)."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for paper_id, text in index.catalog.db.execute("SELECT paper_id, text FROM chunks"):
        for match in _ACRONYM.finditer(text):
            long_form = mined_long_form(text, match)
            if long_form:
                found[match.group(1)].setdefault(str(paper_id), long_form)
        for acronym, long_form in _long_forms_after(text):
            found[acronym].setdefault(str(paper_id), long_form)
    return {
        acronym: next(iter((form, paper) for paper, form in papers.items()))
        for acronym, papers in found.items()
        if len(papers) == 1 and len(acronym) >= 3
    }


def bench_sources(index: Index, distractors: int) -> Sources:
    def sources(question: str, gold_id: str) -> list[Source]:
        gold = [p for p, _ in rank_passages(question, index.paper_passages(gold_id))[:4]]
        others = index.distractors(question, gold_id, distractors)
        return make_sources(rank_passages(question, gold + others))

    return sources


def retriever_sources(data_dir: Path) -> Sources:
    from chat.settings import Settings
    from chat.wiring import Wiring

    retriever = Wiring(Settings(data_dir=data_dir)).retriever

    def sources(question: str, gold_id: str) -> list[Source]:
        del gold_id
        return list(retriever.retrieve(question).sources)

    return sources


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[\u2010-\u2015-]", " ", text).lower().split())


def run(questions: Sequence[tuple[str, str, str]], sources: Sources) -> dict[str, float]:
    """(question, long form, gold paper) each answered: the rates and the time per answer."""
    held = first = leads = gold_in_sources = 0
    times: list[float] = []
    for question, long_form, gold_id in questions:
        given = sources(question, gold_id)
        started = time.perf_counter()
        pieces = extract_answer(question, given)
        times.append((time.perf_counter() - started) * 1000)
        texts = [_normal(_CITATION.sub(" ", p)) for p in pieces if _CITATION.search(p)]
        held += any(_normal(long_form) in text for text in texts)
        first += bool(texts) and _normal(long_form) in texts[0]
        leads += len(texts) < len(pieces)
        gold_in_sources += any(s.id == gold_id for s in given)
    n = max(len(questions), 1)
    return {
        "questions": len(questions),
        "gold in sources": gold_in_sources / n,
        "long form in answer": held / n,
        "long form first": first / n,
        "lead line": leads / n,
        "ms p50": statistics.median(times or [0.0]),
        "ms p95": sorted(times or [0.0])[int(0.95 * (len(times) - 1))] if times else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_dir_option(parser)
    parser.add_argument("--sample", type=int, default=200, help="Acronyms to ask about.")
    parser.add_argument("--distractors", type=int, default=4)
    parser.add_argument("--retriever", action="store_true", help="Sources from the retriever.")
    parser.add_argument(
        "--split", choices=(*SPLITS, "all"), default="dev", help="The acronyms to ask about."
    )
    args = parser.parse_args()
    index_at(args.data_dir)
    index = Index.open(args.data_dir)
    mined = mine(index)
    chosen = sorted(a for a in mined if args.split in ("all", split_of(a)))
    random.Random(0).shuffle(chosen)
    chosen = chosen[: args.sample]
    sources = (
        retriever_sources(args.data_dir)
        if args.retriever
        else bench_sources(index, args.distractors)
    )
    print(
        f"{len(mined)} acronyms defined by one paper; {len(chosen)} of the {args.split} split asked"
    )
    columns = ("questions", "gold in sources", "long form in answer", "long form first",
               "lead line", "ms p50", "ms p95")  # fmt: skip
    print("| phrasing | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    rows: list[list[results.Cell]] = []
    for phrasing in PHRASINGS:
        questions = [(phrasing.format(a), mined[a][0], mined[a][1]) for a in chosen]
        row = run(questions, sources)
        cells = [f"{row[c]:.0f}" if c == "questions" else f"{row[c]:.3f}" for c in columns[:5]]
        cells += [f"{row[c]:.1f}" for c in columns[5:]]
        print(f"| {phrasing.format('X')} | " + " | ".join(cells) + " |")
        rows.append([phrasing.format("X"), *(row[c] for c in columns)])
    formats = dict.fromkeys(columns[1:5], ".3f") | dict.fromkeys(columns[5:], ".1f")
    stats = index.catalog.stats()
    retrieved = ", sources from the retriever" if args.retriever else ""
    setup = results.index_setup(stats, args.data_dir) + retrieved
    results.record(
        "definitions",
        [
            results.figures("acronyms", {"defined by one paper": len(mined), "asked": len(chosen)}),
            results.table("long forms in the answers", ["phrasing", *columns], rows, formats),
        ],
        about=__doc__,
        settings={**vars(args), "index": stats},
        setup=setup,
    )


if __name__ == "__main__":
    main()
