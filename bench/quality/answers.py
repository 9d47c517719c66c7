"""How often extractive answers contain the gold answer terms, against a first-sentences baseline.

Beside the gold terms, three readability figures: how often the first quoted
sentence holds the question's key term (its content word that the fewest
indexed chunks hold), how often the answer opens with a lead line saying it
covers only part of the question, the papers an answer cites (on average), and
the time per answer.

For every dev question with a gold paper, the sources are the gold paper's
best-matching chunks mixed with the best-matching chunks of other papers
(distractors, the other papers' best BM25 chunks), all ordered by a simple
lexical score. Chunks come from an index (read through its catalog and
lexical index); papers it does not hold yet are skipped and counted, or,
with --rebuild-missing, chunked from the shared data with the ingest's own
code.

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.answers [--data-dir .cache/dev-index] [--rebuild-missing]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import results
from bench.dev_index import data_dir_option, index_at
from chat.rag.extractive.answerer import extract_answer
from chat.rag.extractive.sentences import source_sentences
from chat.rag.sources import Source
from ingest.index.catalog import Catalog
from ingest.index.lexical.analysis import terms, words
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.tables.chunks import ChunkRow

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
QUESTION_FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl")
_CITATION = re.compile(r"\[(?:arXiv|doc):[^\]]+\]")

Answerer = Callable[[str, Sequence[Source]], list[str]]


@dataclass(frozen=True)
class Passage:
    """A chunk as the benchmark needs it, whichever way it was obtained."""

    paper_id: str
    title: str
    is_arxiv: bool
    chunk_id: str
    kind: str
    section: str
    page: int | None
    text: str


@dataclass
class Tally:
    questions: int = 0
    all_hits: int = 0
    any_hits: int = 0
    lengths: list[int] = field(default_factory=list)
    sentences: int = 0
    gold_sentences: int = 0
    key_first: int = 0
    leads: int = 0
    papers: list[int] = field(default_factory=list)  # papers each answer cites
    millis: list[float] = field(default_factory=list)

    def add(self, answer: Sequence[str], expected: Sequence[str], gold: int) -> None:
        text = " ".join(_CITATION.sub(" ", "".join(answer)).lower().split())
        found = [" ".join(term.lower().split()) in text for term in expected]
        self.questions += 1
        self.all_hits += all(found)
        self.any_hits += any(found)
        self.lengths.append(len(words(text)))
        self.sentences += sum(1 for piece in answer if _CITATION.search(piece))
        self.gold_sentences += gold

    def read(self, answer: Sequence[str], key: str, millis: float) -> None:
        """The readability figures of one answer: `key` is the question's key term."""
        quoted = [piece for piece in answer if _CITATION.search(piece)]
        self.leads += len(quoted) < len(answer)
        self.key_first += bool(quoted) and key in terms(quoted[0])
        self.papers.append(len(set(_CITATION.findall("".join(quoted)))))
        self.millis.append(millis)


def read_questions(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [row for row in rows if row.get("gold_id")]


@dataclass(frozen=True)
class Index:
    """The parts of an index the benchmark reads."""

    catalog: Catalog
    lexical: LexicalIndex

    @classmethod
    def open(cls, data_dir: Path) -> Index:
        return cls(Catalog(data_dir / "catalog.sqlite"), LexicalIndex(data_dir / "lexical"))

    def passage(self, row: ChunkRow) -> Passage:
        paper = self.catalog.get_paper(row.paper_id)
        title, is_arxiv = (paper.title, paper.is_arxiv) if paper is not None else ("", True)
        page = None if row.kind == "abstract" else row.page_start
        return Passage(row.paper_id, title, is_arxiv, row.id, row.kind, row.section, page, row.text)

    def paper_passages(self, paper_id: str) -> list[Passage]:
        """The paper's chunks, abstract first, in their order."""
        ids = self.catalog.chunk_ids(paper_id)
        rows = self.catalog.chunk_rows(ids)
        ordered = sorted(rows.values(), key=lambda r: (r.kind, r.number))
        return [self.passage(row) for row in ordered]

    def distractors(self, question: str, gold_id: str, count: int) -> list[Passage]:
        """The best BM25 chunk of each of the `count` best other papers."""
        hits = self.lexical.search(question, count * 4)
        rows = self.catalog.chunk_rows([chunk_id for chunk_id, _, _ in hits])
        chosen: list[Passage] = []
        for chunk_id, paper_id, _ in hits:
            taken = any(p.paper_id == paper_id for p in chosen)
            if paper_id != gold_id and chunk_id in rows and not taken:
                chosen.append(self.passage(rows[chunk_id]))
        return chosen[:count]


def rebuilt_passages(paper_ids: set[str]) -> dict[str, list[Passage]]:
    """Chunks of papers made from the shared data with the ingest's chunker."""
    from ingest.chunking import abstract_pieces, fulltext_pieces
    from ingest.embedders.base import WordPieces, model_dir
    from ingest.index.records import Paper
    from ingest.pdf.parsing import parse_pdf
    from ingest.sources.metadata import read_metadata

    count = WordPieces(model_dir()).count
    found: dict[str, list[Passage]] = {}
    for paper in read_metadata(DATA / "arxiv" / "abstracts.jsonl.gz"):
        if isinstance(paper, Paper) and paper.id in paper_ids:
            pieces = abstract_pieces(paper, count)
            found[paper.id] = [
                Passage(paper.id, paper.title, True, f"{paper.id}#a{i}", "abstract", "Abstract",
                        None, piece.text)
                for i, piece in enumerate(pieces)
            ]  # fmt: skip
    for pdf in sorted((DATA / "pdfs").glob("*.pdf")):
        paper_id = re.sub(r"v\d+$", "", pdf.stem)
        if paper_id in paper_ids:
            parsed = parse_pdf(str(pdf))
            is_arxiv = not paper_id.startswith("20") or "." in paper_id[:5]
            title = parsed.metadata_title or parsed.first_page_title or pdf.stem
            found.setdefault(paper_id, []).extend(
                Passage(paper_id, title, is_arxiv, f"{paper_id}#f{i}", "fulltext", piece.section,
                        piece.page_start, piece.text)
                for i, piece in enumerate(fulltext_pieces(parsed.blocks, count))
            )  # fmt: skip
    return found


def rank_passages(question: str, passages: Iterable[Passage]) -> list[tuple[Passage, float]]:
    """Passages by a plain BM25-style overlap with the question, best first."""
    pool = list(dict.fromkeys(passages))
    bags = [Counter(terms(f"{p.section}\n{p.text}")) for p in pool]
    df = Counter(t for bag in bags for t in bag)
    wanted = set(terms(question))

    def score(bag: Counter[str]) -> float:
        return sum(
            math.log(1 + len(bags) / df[t]) * bag[t] / (bag[t] + 1.2) for t in wanted if bag[t]
        )

    return sorted(zip(pool, map(score, bags), strict=True), key=lambda pair: -pair[1])


def make_sources(ranked: Sequence[tuple[Passage, float]]) -> list[Source]:
    return [
        Source(
            n=n, id=p.paper_id, is_arxiv=p.is_arxiv, title=p.title, chunk_id=p.chunk_id,
            kind=p.kind, section=p.section, page=p.page, text=p.text, score=score,
            url=f"https://arxiv.org/abs/{p.paper_id}",
        )
        for n, (p, score) in enumerate(ranked, start=1)
    ]  # fmt: skip


def first_sentences(question: str, sources: Sequence[Source], count: int = 4) -> list[str]:
    """The baseline: the opening sentences of the top sources, in order."""
    del question
    sentences = [s for rank, src in enumerate(sources) for s in source_sentences(src, rank)]
    body = [s for s in sentences if not s.is_title][:count]
    return [f"{s.text} {s.source.citation} " for s in body]


def _extractive(question: str, sources: Sequence[Source]) -> list[str]:
    return extract_answer(question, sources)


ANSWERERS: dict[str, Answerer] = {"extractive": _extractive, "first-4": first_sentences}


def _gold_count(pieces: Sequence[str], gold_id: str) -> int:
    return sum(1 for piece in pieces if f":{gold_id}]" in piece)


def question_sources(
    row: dict[str, object],
    gold: Sequence[Passage],
    index: Index,
    args: argparse.Namespace,
) -> list[Source]:
    question, gold_id = str(row["question"]), str(row["gold_id"])
    best_gold = [p for p, _ in rank_passages(question, gold)[: args.gold_chunks]]
    others = index.distractors(question, gold_id, args.distractors)
    ranked = rank_passages(question, best_gold + others)
    if args.order == "shuffled":  # retrieval that does not put the gold paper first
        random.Random(question).shuffle(ranked)
    return make_sources(ranked)


def key_term(question: str, index: Index) -> str:
    """The question's content term that the fewest indexed chunks hold."""
    stems = [t for t in dict.fromkeys(terms(question)) if len(t) > 2]
    frequencies = index.lexical.document_frequencies(stems)
    return min(stems, key=lambda t: (frequencies.get(t, 0) or 10**9, stems.index(t)), default="")


def run_file(
    path: Path, index: Index, rebuilt: dict[str, list[Passage]], args: argparse.Namespace
) -> tuple[dict[tuple[str, str], Tally], Counter[str]]:
    tallies: dict[tuple[str, str], Tally] = {}
    missing: Counter[str] = Counter()
    for row in read_questions(path):
        kind = str(row.get("type") or "pdf")
        gold_id = str(row["gold_id"])
        gold = index.paper_passages(gold_id) or rebuilt.get(gold_id, [])
        if kind == "pdf" and not any(p.kind == "fulltext" for p in gold):
            gold += [p for p in rebuilt.get(gold_id, []) if p.kind == "fulltext"]
        if not gold:
            missing[kind] += 1
            continue
        sources = question_sources(row, gold, index, args)
        expected = [str(term) for term in row["answer_terms"]]  # type: ignore[attr-defined]  # a JSON list
        key = key_term(str(row["question"]), index)
        for name, answerer in ANSWERERS.items():
            started = time.perf_counter()
            pieces = answerer(str(row["question"]), sources)
            millis = (time.perf_counter() - started) * 1000
            tally = tallies.setdefault((kind, name), Tally())
            tally.add(pieces, expected, _gold_count(pieces, gold_id))
            tally.read(pieces, key, millis)
    return tallies, missing


def print_header() -> None:
    print(
        f"{'file':<26} {'type':<11} {'answerer':<11} {'questions':>9} {'missing':>7}"
        f" {'all terms':>9} {'any term':>8} {'words':>6} {'gold sent.':>10}"
        f" {'key first':>9} {'lead':>6} {'papers':>6} {'ms p50':>6} {'ms p95':>6}"
    )


COLUMNS = (
    "file", "type", "answerer", "questions", "missing", "all terms", "any term", "words",
    "gold sentences", "key term first", "lead line", "papers cited", "ms p50", "ms p95",
)  # fmt: skip
FORMATS = dict.fromkeys(
    ("all terms", "any term", "gold sentences", "key term first", "lead line"), ".1%"
)
FORMATS |= dict.fromkeys(("words", "ms p50", "ms p95"), ".1f") | {"papers cited": ".2f"}


def result_rows(
    name: str, tallies: dict[tuple[str, str], Tally], missing: Counter[str]
) -> list[list[results.Cell]]:
    """One row per question type and answerer (in `COLUMNS`), and one per type all missing."""
    rows: list[list[results.Cell]] = []
    for kind in sorted(missing.keys() - {k for k, _ in tallies}):
        rows.append([name, kind, "-", 0, missing[kind], *[None] * 9])
    for (kind, answerer), t in sorted(tallies.items()):
        n = max(t.questions, 1)
        rows.append([
            name, kind, answerer, t.questions, missing[kind], t.all_hits / n, t.any_hits / n,
            statistics.fmean(t.lengths or [0]), t.gold_sentences / max(t.sentences, 1),
            t.key_first / n, t.leads / n, statistics.fmean(t.papers or [0]),
            statistics.median(t.millis or [0.0]), _p95(t.millis),
        ])  # fmt: skip
    return rows


def print_rows(rows: list[list[results.Cell]]) -> None:
    for name, kind, answerer, questions, missing, *figures in rows:
        if figures[0] is None:
            print(f"{name:<26} {kind:<11} {answerer:<11} {questions:>9} {missing:>7}")
            continue
        all_hits, any_hits, words, gold, key_first, leads, papers, p50, p95 = figures
        print(
            f"{name:<26} {kind:<11} {answerer:<11} {questions:>9} {missing:>7}"
            f" {all_hits:>9.1%} {any_hits:>8.1%} {words:>6.1f} {gold:>10.1%}"
            f" {key_first:>9.1%} {leads:>6.1%} {papers:>6.2f} {p50:>6.1f} {p95:>6.1f}"
        )


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_dir_option(parser)
    parser.add_argument("--eval-dir", type=Path, default=DATA / "eval")
    parser.add_argument("--gold-chunks", type=int, default=4)
    parser.add_argument("--distractors", type=int, default=4)
    parser.add_argument("--rebuild-missing", action="store_true")
    parser.add_argument("--order", choices=("lexical", "shuffled"), default="lexical")
    args = parser.parse_args()
    index_at(args.data_dir)
    index = Index.open(args.data_dir)
    files = {name: read_questions(args.eval_dir / name) for name in QUESTION_FILES}
    wanted = {str(row["gold_id"]) for rows in files.values() for row in rows}
    rebuilt = rebuilt_passages(wanted) if args.rebuild_missing else {}
    print_header()
    rows: list[list[results.Cell]] = []
    for name in QUESTION_FILES:
        tallies, missing = run_file(args.eval_dir / name, index, rebuilt, args)
        found = result_rows(name, tallies, missing)
        print_rows(found)
        rows += found
    stats = index.catalog.stats()
    shuffled = ", sources shuffled" if args.order == "shuffled" else ""
    setup = results.index_setup(stats, args.data_dir) + shuffled
    results.record(
        "answers",
        [results.table("answers by question type", COLUMNS, rows, FORMATS, key_columns=3)],
        about=__doc__,
        settings={**vars(args), "index": stats},
        setup=setup,
    )


if __name__ == "__main__":
    main()
