"""PDF body text against a labelled set: debris left in body chunks, sentences kept whole.

For each labelled page of the shared PDFs (`bench/data/pdf_layout.json`),
the strings that must not appear inside a body chunk (figure labels, axis
ticks, captions, table cells, footnotes, running heads) and the body
sentences that must come out whole in one chunk. Body chunks are the
full-text chunks the ingest makes (captions, tables and footnotes are
chunks of their own kinds and do not count as body). Then the parsing speed
over every shared PDF.

    python -m bench.quality.pdf_layout [--no-speed]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from bench import results
from ingest.chunking import fulltext_pieces
from ingest.embedders.base import WordPieces, model_dir
from ingest.pdf.parsing import parse_pdf

ROOT = Path(__file__).resolve().parents[2]
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
LABELS = ROOT / "bench" / "data" / "pdf_layout.json"


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


def score_paper(name: str, pages: dict[str, dict[str, list[str]]], count: WordPieces) -> Score:
    parsed = parse_pdf(str(PDFS / name))
    body = [
        piece
        for piece in fulltext_pieces(parsed.blocks, count.count)
        if getattr(piece, "kind", "fulltext") == "fulltext"
    ]
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


def speed() -> tuple[int, float]:
    pages = 0
    started = time.perf_counter()
    for pdf in sorted(PDFS.glob("*.pdf")):
        pages += parse_pdf(str(pdf)).page_count
    return pages, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-speed", action="store_true", help="skip the parsing speed")
    args = parser.parse_args(argv)
    labels = json.loads(LABELS.read_text())
    count = WordPieces(model_dir())
    total = Score()
    print("| paper | pages | debris left in body | body sentences intact |")
    print("|---|---|---|---|")
    rows = []
    for name, paper in sorted(labels["pdfs"].items()):
        score = score_paper(name, paper["pages"], count)
        total.add(score)
        print(score.row(name))
        rows.append(score.cells(name))
    print(total.row("**all**"))
    rows.append(total.cells("all"))
    columns = ["paper", "pages", "debris left in body", "body sentences intact", "intact share"]
    tables = [results.table("labelled pages", columns, rows, {"intact share": ".3f"})]
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
        setup=f"The labelled pages of {results.shown_path(LABELS)}",
        argv=argv,
    )


if __name__ == "__main__":
    main()
