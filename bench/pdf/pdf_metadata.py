"""How well the metadata of a paper that came only as a PDF is read from its first page.

Every PDF in ../shared/data/pdfs is parsed as if no metadata record existed,
and four fields of the record made from it are checked against labels read
by eye from each first page (`bench/data/pdf_metadata.json`): the title
(same words, and not in capitals unless printed so), the first author, the
year and the abstract's first words. "before" is the record as it was made
before the page-1 header was read (the document information's title and
authors, the text of an "Abstract" section, no date); "after" is today's.

    python -m bench.pdf.pdf_metadata
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from bench import results
from ingest.index.records import Paper, ParsedPdf
from ingest.pdf.parsing import parse_pdf
from ingest.sources.units import paper_from_pdf, pdf_identity

ROOT = Path(__file__).resolve().parents[2]
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
LABELS = ROOT / "bench" / "data" / "pdf_metadata.json"
FIELDS = ("title", "first_author", "year", "abstract_start")


def _words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    return re.findall(r"[a-z0-9]+", plain)


def before_paper(path: Path, parsed: ParsedPdf) -> Paper:
    """The record as it was made before page 1's header was read."""
    title = parsed.metadata_title or parsed.first_page_title or path.stem
    abstract = " ".join(b.text for b in parsed.blocks if b.section.lower() == "abstract")
    return Paper(id="", title=" ".join(title.split()), abstract=" ".join(abstract.split()),
                 authors=parsed.metadata_authors)  # fmt: skip


def after_paper(path: Path, parsed: ParsedPdf) -> Paper:
    paper_id, version, is_arxiv = pdf_identity(path, parsed)
    return paper_from_pdf(path, parsed, paper_id, version, is_arxiv)


def first_author(authors: str) -> str:
    return re.split(r"\s*(?:,|;|\band\b)\s*", authors.strip())[0] if authors.strip() else ""


def right(paper: Paper, label: dict[str, object]) -> dict[str, bool]:
    title, truth = paper.title, str(label["title"])
    capitals = title.isupper() and not truth.isupper()
    year = (paper.published or paper.updated)[:4]
    start = _words(str(label["abstract_start"]))
    return {
        "title": _words(title) == _words(truth) and not capitals,
        "first_author": _words(first_author(paper.authors)) == _words(str(label["first_author"])),
        "year": year == str(label["year"]),
        "abstract_start": _words(paper.abstract)[: len(start)] == start,
    }


def main() -> None:
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["papers"]
    totals = {"before": dict.fromkeys(FIELDS, 0), "after": dict.fromkeys(FIELDS, 0)}
    print(f"command: {results.command('pdf_metadata')}\n")
    now = " | ".join(f"{field.replace('_', ' ')} now" for field in FIELDS)
    print(f"| PDF | {now} | right before | right now |")
    print("|---|---|---|---|---|---|---|")
    rows: list[list[results.Cell]] = []
    for name, label in labels.items():
        path = PDFS / name
        parsed = parse_pdf(str(path))
        before = right(before_paper(path, parsed), label)
        after = right(after_paper(path, parsed), label)
        for field in FIELDS:
            totals["before"][field] += before[field]
            totals["after"][field] += after[field]
        marks = " | ".join("yes" if after[f] else "**no**" for f in FIELDS)
        print(f"| {name[:40]} | {marks} | {sum(before.values())} | {sum(after.values())} |")
        rows.append([name, *("yes" if after[f] else "no" for f in FIELDS), sum(before.values()),
                     sum(after.values())])  # fmt: skip
    count = len(labels)
    print()
    print("| fields right | title | first author | year | abstract | all fields |")
    print("|---|---|---|---|---|---|")
    shares: list[list[results.Cell]] = []
    for when, fields in totals.items():
        line = " | ".join(f"{fields[f] / count:.2f}" for f in FIELDS)
        print(f"| {when} | {line} | {sum(fields.values()) / (count * len(FIELDS)):.3f} |")
        shares.append([when, *(fields[f] / count for f in FIELDS),
                       sum(fields.values()) / (count * len(FIELDS))])  # fmt: skip
    per_pdf = ["PDF", *(f"{field.replace('_', ' ')} now" for field in FIELDS), "right before",
               "right now"]  # fmt: skip
    share_columns = ["fields right", "title", "first author", "year", "abstract", "all fields"]
    formats = dict.fromkeys(share_columns[1:-1], ".2f") | {"all fields": ".3f"}
    results.record(
        "pdf_metadata",
        [
            results.table("fields right by PDF", per_pdf, rows),
            results.table("fields right", share_columns, shares, formats),
        ],
        about=__doc__,
        settings={"pdfs": results.shown_path(PDFS), "labels": results.shown_path(LABELS)},
        setup=f"The {count} PDFs labelled in {results.shown_path(LABELS)}",
    )


if __name__ == "__main__":
    main()
