"""How well the in-text citation marks of PDF pages are found and named, and how long a page takes.

Each mark labelled in `bench/data/citation_marks.jsonl` (every citation mark of 34 pages
of 21 of the shared PDFs, numbered and author-year, with the entry of the reference list
each names, checked against the PDF's printed list by eye: a title's words, and where two
entries share one, the year as printed, "2019a") is looked for among the marks the product
finds on its page (`ingest.references.linking`, over the references its PDF stage reads).
A cite is right when the entry named prints the labelled title. Precision is the share of
the cites named on those pages that are right (a mark found that is no label counts
against it), recall the share of labelled cites named right, by the mark's form. "dev"
pages were labelled from the product's marks, read and corrected by eye, and their misses
added from a scan of every bracket and year on the page; "held_out" pages were labelled
from the page and its list alone, before the product's marks on them were looked at. The
time to annotate a page is that of finding and naming its marks, finding the uses of the
paper's defined terms and reading the boxes of both from PDFium, the paper's list and
terms read already, over every page of the 38 PDFs; reading a paper's list and its terms
once is timed apart.

The terms a PDF defines (`ingest.references.terms`: acronyms with their long forms, symbols
a sentence defines) were read by eye for the 8 PDFs of `bench/data/page_terms.jsonl`: each
term found, its definition and whether it is right (the long form or meaning the paper
gives the name, whole). Precision is the share of the terms found on those PDFs that are
labelled right; a term found that is not labelled counts against it.

The skim's sentences (`chat.service.web.papers.skim`: those stating a paper's goal, method,
results and limitations) were read by eye for the 7 PDFs of `bench/data/skim_labels.jsonl`:
each sentence chosen and whether its facet is right (a "limitation" must be the paper's
own, a "goal" what the paper sets out to do). Precision is the share of the sentences
chosen on those PDFs that are labelled right; one not labelled counts against it. The
"held_out" PDFs were read after one round of changes their first reading prompted (cut-off
sentences at page breaks, sentences speaking of others' work), so they are not a clean
held-out set. The skim is timed with the paper's list and terms, and each page's
annotation reads the boxes of its skim sentences too.

    python -m bench.quality.citation_marks
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from bench import results
from bench.report import format_cell
from chat.service.web.papers.skim import FACETS, SkimSentence, skim
from ingest.pdf.alignment import keys_of
from ingest.pdf.parsing import parse_pdf
from ingest.pdf.positions import char_range_boxes, page_text
from ingest.references import read_references
from ingest.references.linking import Entry, ReferenceList
from ingest.references.marks import Mark
from ingest.references.terms import Term, defined_terms, term_uses

ROOT = Path(__file__).resolve().parents[2]
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
LABELS = ROOT / "bench" / "data" / "citation_marks.jsonl"
TERM_LABELS = ROOT / "bench" / "data" / "page_terms.jsonl"
SKIM_LABELS = ROOT / "bench" / "data" / "skim_labels.jsonl"
SKIM_COLUMNS = ["split", "facet", "PDFs", "chosen", "right", "precision"]
TERM_COLUMNS = ["form", "PDFs", "terms found", "right", "precision"]
KINDS = ("acronym", "symbol")
STYLES = ("numeric", "author-year", "narrative")
SPLITS = ("dev", "held_out")
COLUMNS = ["split", "style", "labelled marks", "labelled cites", "cites named", "right",
           "precision", "recall"]  # fmt: skip


def page_texts(document: pdfium.PdfDocument) -> list[str]:
    texts = []
    for index in range(len(document)):
        page = document[index]
        textpage = page.get_textpage()
        try:
            texts.append(page_text(textpage))
        finally:
            textpage.close()
            page.close()
    return texts


def right(label: dict[str, str], entry: Entry) -> bool:
    """Does the entry print the labelled title (and the year as labelled, when given)?"""
    printed = keys_of(entry.printed.replace("\ufffe", ""))[0]
    wanted = [keys_of(label["title"])[0], keys_of(label.get("also", ""))[0]]
    return all(key in printed for key in wanted)


def same_mark(label: str, found: str) -> bool:
    """The labelled mark, or one the same but for its end ("Rajpurkar et al., 2016" found for
    "Rajpurkar et al., 2016; 2018": its second cite is then missed)."""
    a, b = keys_of(label)[0], keys_of(found)[0]
    return bool(a and b) and (a.startswith(b) or b.startswith(a))


class Score:
    def __init__(self) -> None:
        self.marks: Counter[str] = Counter()
        self.cites: Counter[str] = Counter()
        self.named: Counter[str] = Counter()
        self.right: Counter[str] = Counter()
        self.misses: list[str] = []

    def page(
        self, where: str, labels: list[dict[str, Any]], found: list[tuple[Mark, list[Entry]]]
    ) -> None:
        unused = list(found)
        for label in labels:
            style = label["style"]
            self.marks[style] += 1
            self.cites[style] += len(label["references"])
            match = next((f for f in unused if same_mark(label["mark"], f[0].text)), None)
            if match is None:
                self.misses.append(f"{where}: not found {label['mark']!r}")
                continue
            unused.remove(match)
            entries = list(match[1])
            self.named[style] += len(entries)
            for wanted in label["references"]:
                hit = next((e for e in entries if right(wanted, e)), None)
                if hit is None:
                    self.misses.append(f"{where}: {label['mark']!r} lacks {wanted['title']!r}")
                    continue
                entries.remove(hit)
                self.right[style] += 1
            self.misses += [f"{where}: {label['mark']!r} names {e.printed[:60]!r}" for e in entries]
        for mark, entries in unused:
            self.named[mark.style] += len(entries)
            self.misses.append(f"{where}: no label for {mark.text!r}")

    def row(self, style: str, styles: Sequence[str]) -> list[results.Cell]:
        named = sum(self.named[s] for s in styles)
        cites = sum(self.cites[s] for s in styles)
        hits = sum(self.right[s] for s in styles)
        return [
            style, sum(self.marks[s] for s in styles), cites, named, hits,
            hits / named if named else None, hits / cites if cites else None,
        ]  # fmt: skip


def annotate_page(
    references: ReferenceList,
    terms: tuple[Term, ...],
    skimmed: tuple[SkimSentence, ...],
    document: pdfium.PdfDocument,
    number: int,
    text: str,
) -> int:
    marks = references.page_marks(number, text)
    ranges = [(mark.start, mark.end - mark.start) for mark, _ in marks]
    ranges += [(start, end - start) for _, start, end in term_uses(terms, number, text)]
    ranges += [(s.start, s.end - s.start) for s in skimmed if s.page == number]
    if ranges:
        char_range_boxes(document, number, ranges)
    return len(marks)


def term_rows(
    labels: dict[tuple[str, str, str], bool], found: dict[str, tuple[Term, ...]]
) -> list[list[results.Cell]]:
    """Terms found and right on the labelled PDFs, by form."""
    rows: list[list[results.Cell]] = []
    for kind, kinds in [*((kind, [kind]) for kind in KINDS), ("all", KINDS)]:
        terms = [(pdf, t) for pdf, ts in found.items() for t in ts if t.kind in kinds]
        hits = sum(labels.get((pdf, t.name, t.meaning), False) for pdf, t in terms)
        rows.append([kind, len(found), len(terms), hits, hits / len(terms) if terms else None])
    return rows


def skim_rows(
    labels: dict[tuple[str, int, str, str], tuple[str, bool]],
    found: dict[str, tuple[SkimSentence, ...]],
) -> list[list[results.Cell]]:
    """The skim's sentences on the labelled PDFs and how many have the right facet, by
    split and facet."""
    rows: list[list[results.Cell]] = []
    for split in SPLITS:
        pdfs = {pdf for (pdf, *_), (s, _) in labels.items() if s == split}
        for facet, facets in [*((f, [f]) for f in FACETS), ("all", list(FACETS))]:
            chosen = [(pdf, c) for pdf in pdfs for c in found[pdf] if c.facet in facets]
            hits = sum(
                labels.get((pdf, c.page, c.facet, c.text[:60]), ("", False))[1] for pdf, c in chosen
            )
            rows.append(
                [split, facet, len(pdfs), len(chosen), hits, hits / len(chosen) if chosen else None]
            )
    return rows


def _print_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[results.Cell]],
    formats: dict[str, str],
    *,
    gap: bool = False,
) -> None:
    """`rows` as a Markdown table, each column's cells as `formats` says."""
    print(f"{chr(10) if gap else ''}| {' | '.join(columns)} |")
    print("|" + "---|" * len(columns))
    for row in rows:
        cells = [
            format_cell(cell, formats.get(c, "")) for c, cell in zip(columns, row, strict=True)
        ]
        print(f"| {' | '.join(cells)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--verbose", action="store_true", help="Print each miss.")
    args = parser.parse_args()
    labels: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        labels[(row["pdf"], row["page"])].append(row)
    scores = {split: Score() for split in SPLITS}
    page_ms: list[float] = []
    list_ms: list[float] = []
    marks_found = 0
    term_labels = {
        (row["pdf"], row["term"], row["definition"]): bool(row["right"])
        for row in map(json.loads, TERM_LABELS.read_text(encoding="utf-8").splitlines())
    }
    terms_found: dict[str, tuple[Term, ...]] = {}
    terms_ms: list[float] = []
    skim_labels = {
        (row["pdf"], row["page"], row["facet"], row["starts"]): (row["split"], bool(row["right"]))
        for row in map(json.loads, SKIM_LABELS.read_text(encoding="utf-8").splitlines())
    }
    skimmed_found: dict[str, tuple[SkimSentence, ...]] = {}
    skim_ms: list[float] = []
    paths = sorted(PDFS.glob("*.pdf"))
    for path in paths:
        stored = read_references(parse_pdf(str(path)).blocks)
        document = pdfium.PdfDocument(str(path))
        try:
            texts = page_texts(document)
            start = time.perf_counter()
            references = ReferenceList(stored, texts)
            list_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            terms = defined_terms(texts)
            terms_ms.append((time.perf_counter() - start) * 1000)
            if any(pdf == path.name for pdf, _, _ in term_labels):
                terms_found[path.name] = terms
            start = time.perf_counter()
            skimmed = skim(texts)
            skim_ms.append((time.perf_counter() - start) * 1000)
            skimmed_found[path.name] = skimmed
            for number, text in enumerate(texts, start=1):
                start = time.perf_counter()
                marks_found += annotate_page(references, terms, skimmed, document, number, text)
                page_ms.append((time.perf_counter() - start) * 1000)
                if (path.name, number) in labels:
                    page = labels[(path.name, number)]
                    found = references.page_marks(number, text)
                    scores[page[0]["split"]].page(f"{path.name} p{number}", page, found)
        finally:
            document.close()
    rows = [
        [split, *score.row(style, styles)]
        for split, score in scores.items()
        for style, styles in [*((style, [style]) for style in STYLES), ("all", STYLES)]
    ]
    shares = {"precision": ".3f", "recall": ".3f"}
    timing = {
        "pages": len(page_ms),
        "marks": marks_found,
        "page p50 ms": statistics.median(page_ms),
        "page p95 ms": statistics.quantiles(page_ms, n=20)[-1],
        "list per paper p50 ms": statistics.median(list_ms),
        "terms per paper p50 ms": statistics.median(terms_ms),
        "skim per paper p50 ms": statistics.median(skim_ms),
    }
    speed = {"page p50 ms": ".2f", "page p95 ms": ".2f", "list per paper p50 ms": ".1f",
             "terms per paper p50 ms": ".1f", "skim per paper p50 ms": ".1f"}  # fmt: skip
    defined = term_rows(term_labels, terms_found)
    skimmed_rows = skim_rows(skim_labels, skimmed_found)
    if args.verbose:
        print("\n".join(miss for score in scores.values() for miss in score.misses))
    _print_table(COLUMNS, rows, shares)
    _print_table(TERM_COLUMNS, defined, {"precision": ".3f"}, gap=True)
    _print_table(SKIM_COLUMNS, skimmed_rows, {"precision": ".3f"}, gap=True)
    print(" · ".join(f"{k} {format_cell(v, speed.get(k, ''))}" for k, v in timing.items()))
    pdfs = len({pdf for pdf, _ in labels})
    results.record(
        "citation_marks",
        [
            results.table("citation marks named, by form", COLUMNS, rows, shares, key_columns=2),
            results.table(
                "terms defined, by form", TERM_COLUMNS, defined, {"precision": ".3f"}, key_columns=1
            ),
            results.table(
                "skim sentences with the right facet",
                SKIM_COLUMNS,
                skimmed_rows,
                {"precision": ".3f"},
                key_columns=2,
            ),
            results.figures("time to annotate a page", timing, speed),
        ],
        about=__doc__,
        settings={
            "pdfs": results.shown_path(PDFS),
            "labels": results.shown_path(LABELS),
            "term labels": results.shown_path(TERM_LABELS),
            "skim labels": results.shown_path(SKIM_LABELS),
        },
        setup=f"{sum(len(v) for v in labels.values())} marks labelled on {len(labels)} pages "
        f"of {pdfs} PDFs; timed over the {len(paths)} PDFs of {results.shown_path(PDFS)}",
    )


if __name__ == "__main__":
    main()
