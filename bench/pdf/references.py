"""How well the reference lists of PDFs are read, and resolved to the library's papers.

Each PDF labelled in `bench/data/references.json` (every entry of its reference list, read
by eye: title, year, arXiv id if printed, the library paper it names) is parsed with the
product's own PDF stage and `ingest/references/`. A reference read is matched to a label by
its title (the same words, or one title's words starting the other's, or close enough);
on the matched ones the title (the same letters and digits), the year and the arXiv id are checked.
Resolution runs the catalog's own read-time lookup (arXiv id, DOI, unique title key) in a
copy of an index's catalog (by default the full index, `python -m bench.full_index`):
precision is the share of references resolved to a paper that name the labelled one,
recall the share of labelled references to a paper of that catalog resolved to it.
"dev" papers were looked at while the parser was improved; "held-out" ones were not.

    python -m bench.pdf.references [--data-dir .cache/dev-index]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from bench import results
from bench.dev_index import data_dir_option, index_at
from bench.report import format_cell
from ingest.index.catalog import Catalog
from ingest.index.records import Reference
from ingest.pdf.parsing import parse_pdf
from ingest.references import read_references

ROOT = Path(__file__).resolve().parents[2]
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
LABELS = ROOT / "bench" / "data" / "references.json"
# Two titles this alike (difflib's ratio of their words) name the same work.
MIN_TITLE_LIKENESS = 0.6
SPLITS = ("dev", "held_out")
COLUMNS = ["paper", "split", "found", "true", "matched", "title", "year", "arXiv id",
           "resolved precision", "resolved recall"]  # fmt: skip


def words(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    return " ".join(re.findall(r"[a-z0-9]+", plain))


def alike(read: str, label: str) -> bool:
    """Does a title read name the labelled one (cut short or run on included)?"""
    a, b = words(read), words(label)
    if not a or not b:
        return False
    if min(len(a), len(b)) >= 12 and (a.startswith(b) or b.startswith(a)):
        return True
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= MIN_TITLE_LIKENESS


def same_title(read: str, label: str) -> bool:
    """The same title: the same letters and digits, whatever the spaces and hyphens."""
    return words(read).replace(" ", "") == words(label).replace(" ", "")


def match(read: list[Reference], labels: list[dict[str, Any]]) -> dict[int, int]:
    """Label index -> index of the reference read for it; each used once, the likest first."""
    pairs = sorted(
        (
            (SequenceMatcher(None, words(r.title), words(str(lab["title"]))).ratio(), li, ri)
            for li, lab in enumerate(labels)
            for ri, r in enumerate(read)
            if alike(r.title, str(lab["title"]))
        ),
        reverse=True,
    )
    matched: dict[int, int] = {}
    used: set[int] = set()
    for _, li, ri in pairs:
        if li not in matched and ri not in used:
            matched[li] = ri
            used.add(ri)
    return matched


@dataclass
class Counts:
    found: int = 0
    true: int = 0
    matched: int = 0
    title: int = 0
    year: int = 0
    arxiv: int = 0
    resolved: int = 0
    resolved_right: int = 0
    resolvable: int = 0
    recalled: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        for name in ("found", "true", "matched", "title", "year", "arxiv", "resolved",
                     "resolved_right", "resolvable", "recalled"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def row(self, paper: str, split: str) -> list[results.Cell]:
        return [paper, split, self.found, self.true, self.matched,
                share(self.title, self.matched), share(self.year, self.matched),
                share(self.arxiv, self.matched), share(self.resolved_right, self.resolved),
                share(self.recalled, self.resolvable)]  # fmt: skip


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def score(
    paper_id: str, labels: list[dict[str, Any]], read: list[Reference], catalog: Catalog
) -> Counts:
    with catalog.transaction():
        catalog.replace_references(paper_id, read)
    resolved = [stored.resolved_id for stored in catalog.references_of(paper_id)]
    in_catalog = {
        str(row[0]) for row in catalog.db.execute("SELECT id FROM papers")
    }  # the papers a reference may resolve to here
    matched = match(read, labels)
    counts = Counts(found=len(read), true=len(labels), matched=len(matched))
    for li, label in enumerate(labels):
        ri = matched.get(li)
        wanted = label["library_id"] if label["library_id"] in in_catalog else None
        counts.resolvable += wanted is not None
        if ri is None:
            counts.misses.append(f"not found: {label['title']}")
            continue
        got = read[ri]
        counts.title += same_title(got.title, str(label["title"]))
        counts.year += got.year == label["year"]
        counts.arxiv += got.arxiv_id == label["arxiv_id"]
        counts.recalled += wanted is not None and resolved[ri] == wanted
        if not same_title(got.title, str(label["title"])):
            counts.misses.append(f"title: {got.title!r} for {label['title']!r}")
    names = {ri: labels[li]["library_id"] for li, ri in matched.items()}
    for ri, resolved_id in enumerate(resolved):
        if resolved_id is not None:
            counts.resolved += 1
            counts.resolved_right += names.get(ri) == resolved_id
    return counts


def paper_id(name: str) -> str:
    return re.sub(r"v\d+$", "", Path(name).stem)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_dir_option(parser)
    parser.add_argument("--verbose", action="store_true", help="Print each miss.")
    parser.add_argument("--split", choices=SPLITS, help="Only this part's papers (not recorded).")
    args = parser.parse_args()
    index_catalog = index_at(args.data_dir) / "catalog.sqlite"
    labelled = json.loads(LABELS.read_text(encoding="utf-8"))["papers"]
    print(f"command: {results.command('references')}")
    print(f"resolving in a copy of {index_catalog}\n")
    rows: list[list[results.Cell]] = []
    totals = {split: Counts() for split in SPLITS}
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "catalog.sqlite"
        shutil.copy(index_catalog, copy)
        catalog = Catalog(copy)
        papers = catalog.db.execute("SELECT count(*) FROM papers").fetchone()[0]
        for name, paper in labelled.items():
            if args.split and paper["split"] != args.split:
                continue
            read = list(read_references(parse_pdf(str(PDFS / name)).blocks))
            counts = score(paper_id(name), paper["references"], read, catalog)
            totals[paper["split"]].add(counts)
            rows.append(counts.row(name, paper["split"]))
            if args.verbose:
                print("\n".join(f"{name}: {miss}" for miss in counts.misses))
    rows += [totals[split].row("all", split) for split in SPLITS if totals[split].true]
    shares = dict.fromkeys(COLUMNS[5:], ".2f")
    print(f"| {' | '.join(COLUMNS)} |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        cells = [format_cell(cell, shares.get(c, "")) for c, cell in zip(COLUMNS, row, strict=True)]
        print(f"| {' | '.join(cells)} |")
    if args.split:
        return
    results.record(
        "references",
        [results.table("references read and resolved", COLUMNS, rows, shares, key_columns=2)],
        about=__doc__,
        settings={
            "pdfs": results.shown_path(PDFS),
            "labels": results.shown_path(LABELS),
            "data_dir": str(args.data_dir),
        },
        setup=f"The {len(labelled)} PDFs labelled in {results.shown_path(LABELS)}, "
        f"resolved in a catalog of {papers:,} papers",
    )


if __name__ == "__main__":
    main()
