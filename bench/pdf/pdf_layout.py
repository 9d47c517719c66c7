"""PDF body text and tables against a labelled set: debris, whole sentences, table cells.

For each labelled page of the shared PDFs (`bench/data/pdf_layout.json`),
the strings that must not appear inside a body chunk (figure labels, axis
ticks, captions, table cells, footnotes, running heads) and the body
sentences that must come out whole in one chunk. Body chunks are the
full-text chunks the ingest makes (captions, tables and footnotes are
chunks of their own kinds and do not count as body). Pages are in two
splits: `dev`, looked at while the layout rules were written, and
`held_out`, drawn at random and not looked at; each is reported apart.

Then hand-checked table cells: a cell is right when a table chunk of its
page, read as a header line and rows of cells joined by " | " (a column's
header is the header lines as wide as the row, read top to bottom), has a row
whose label (its first cell) is the cell's row label and whose cell under
the column header holds the value. Then the parsing speed over every PDF.

    python -m bench.pdf.pdf_layout [--split dev|held_out|all] [--no-speed]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import results
from ingest.chunking import Piece, fulltext_pieces
from ingest.embedders.base import WordPieces, model_dir
from ingest.pdf.parsing import parse_pdf

ROOT = Path(__file__).resolve().parents[2]
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
LABELS = ROOT / "bench" / "data" / "pdf_layout.json"
SPLITS = ("dev", "held_out")
_NUMBER = re.compile(r"^[-+\u2212~]?\.?\d")


def normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


@dataclass
class Score:
    pages: int = 0
    debris: int = 0
    debris_left: int = 0
    sentences: int = 0
    intact: int = 0

    def add(self, other: Score) -> None:
        self.pages += other.pages
        self.debris += other.debris
        self.debris_left += other.debris_left
        self.sentences += other.sentences
        self.intact += other.intact

    @property
    def share(self) -> float:
        return self.intact / self.sentences if self.sentences else 1.0

    def row(self, name: str) -> str:
        return (
            f"| {name} | {self.pages} | {self.debris_left} / {self.debris} "
            f"| {self.intact} / {self.sentences} ({self.share:.3f}) |"
        )

    def cells(self, name: str) -> list[results.Cell]:
        return [name, self.pages, [self.debris_left, self.debris], [self.intact, self.sentences],
                self.share]  # fmt: skip


def score_pages(name: str, pages: dict[str, dict[str, Any]], pieces: list[Piece]) -> Score:
    """The debris left in and the sentences kept whole by the body chunks of `pages`."""
    body = [piece for piece in pieces if piece.kind == "fulltext"]
    score = Score()
    for page_key, labels in pages.items():
        page = int(page_key)
        texts = [normal(p.text) for p in body if p.page_start <= page <= p.page_end]
        score.pages += 1
        for debris in labels.get("debris", []):
            score.debris += 1
            if any(normal(debris) in text for text in texts):
                score.debris_left += 1
                print(f"  debris left: {name} p{page}: {debris!r}", file=sys.stderr)
        nearby = [normal(p.text) for p in body if p.page_start <= page + 1 and p.page_end >= page]
        for sentence in labels.get("sentences", []):
            score.sentences += 1
            if any(normal(sentence) in text for text in nearby):
                score.intact += 1
            else:
                print(f"  broken: {name} p{page}: {sentence[:70]!r}", file=sys.stderr)
    return score


def table_cells(text: str) -> set[tuple[str, str, str]]:
    """(row label, column header, value) of every cell of a table chunk's text."""
    rows = [[normal(c) for c in line.split("|")] for line in text.split("\n") if line.strip()]
    headers: list[list[str]] = []
    found: set[tuple[str, str, str]] = set()
    for row in rows:
        if not any(_NUMBER.match(cell) for cell in row[1:]):
            if not found:
                headers.append(row)
            continue
        wide = [line for line in headers if len(line) == len(row)]
        columns = [" ".join(dict.fromkeys(h[i] for h in wide if h[i])) for i in range(len(row))]
        found |= {(row[0], columns[i], row[i]) for i in range(1, len(row)) if wide}
    return found


def score_cells(name: str, tables: Sequence[dict[str, Any]], pieces: list[Piece]) -> list[int]:
    """[right, checked] over the hand-checked cells of one paper's tables."""
    right = checked = 0
    for table in tables:
        page = int(table["page"])
        read: set[tuple[str, str, str]] = set()
        for piece in pieces:
            if piece.kind == "table" and piece.page_start <= page <= piece.page_end:
                read |= table_cells(piece.text)
        for label, column, value in table["cells"]:
            checked += 1
            if (normal(label), normal(column), normal(value)) in read:
                right += 1
            else:
                print(
                    f"  cell: {name} p{page}: {label!r} / {column!r} / {value!r}", file=sys.stderr
                )
    return [right, checked]


def speed() -> tuple[int, float]:
    pages = 0
    started = time.perf_counter()
    for pdf in sorted(PDFS.glob("*.pdf")):
        pages += parse_pdf(str(pdf)).page_count
    return pages, time.perf_counter() - started


def _in_split(labels: dict[str, Any], split: str) -> bool:
    return split == "all" or labels.get("split", "dev") == split


@dataclass
class Run:
    """What the labelled set scored: per paper and split, per split, and table cells."""

    rows: list[list[results.Cell]]
    totals: dict[str, Score]
    cells: dict[str, list[int]]


def score_all(labels: dict[str, Any], splits: Sequence[str]) -> Run:
    count = WordPieces(model_dir())
    run = Run([], {split: Score() for split in splits}, {})
    for name in sorted({*labels["pdfs"], *labels.get("tables", {})}):
        pieces = fulltext_pieces(parse_pdf(str(PDFS / name)).blocks, count.count)
        pages = labels["pdfs"].get(name, {}).get("pages", {})
        for split in splits:
            chosen = {k: v for k, v in pages.items() if _in_split(v, split)}
            if chosen:
                score = score_pages(name, chosen, pieces)
                run.totals[split].add(score)
                print(score.row(f"{name} | {split}"))
                run.rows.append(score.cells(f"{name} ({split})"))
        if name in labels.get("tables", {}):
            run.cells[name] = score_cells(name, labels["tables"][name], pieces)
    return run


def _cell_table(cells: dict[str, list[int]]) -> results.Table:
    right = sum(r for r, _ in cells.values())
    checked = sum(c for _, c in cells.values())
    print("\n| paper | table cells right |\n|---|---|")
    for name, (r, c) in cells.items():
        print(f"| {name} | {r} / {c} |")
    print(f"| **all** | {right} / {checked} |")
    rows: list[list[results.Cell]] = [[name, value] for name, value in cells.items()]
    rows.append(["all", [right, checked]])
    return results.table("hand-checked table cells", ["paper", "cells right"], rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split", choices=[*SPLITS, "all"], default="all", help="the pages scored (default: all)"
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the parsing speed")
    args = parser.parse_args(argv)
    labels = json.loads(LABELS.read_text())
    print("| paper | split | pages | debris left in body | body sentences intact |")
    print("|---|---|---|---|---|")
    run = score_all(labels, SPLITS if args.split == "all" else (args.split,))
    for split, total in run.totals.items():
        print(total.row(f"**all** | {split}"))
        run.rows.append(total.cells(f"all ({split})"))
    columns = ["paper", "pages", "debris left in body", "body sentences intact", "intact share"]
    tables = [results.table("labelled pages", columns, run.rows, {"intact share": ".3f"})]
    tables.append(_cell_table(run.cells))
    if not args.no_speed:
        pages, seconds = speed()
        print(f"\nparsing: {pages} pages in {seconds:.1f} s, {pages / seconds:.0f} pages/s")
        speeds = {"pages": pages, "seconds": seconds, "pages/s": pages / seconds}
        tables.append(
            results.figures(
                "parsing every shared PDF", speeds, {"seconds": ".1f", "pages/s": ".0f"}
            )
        )
    results.record(
        "pdf_layout",
        tables,
        about=__doc__,
        settings=vars(args),
        setup=f"The labelled pages and table cells of {results.shown_path(LABELS)}",
        argv=argv,
    )


if __name__ == "__main__":
    main()
