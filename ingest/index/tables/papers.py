"""The catalog's papers table: a paper's record as a row, and the PDF each full text
was read from.

Each function runs on the caller's `CatalogDb`; `Catalog` (`ingest/index/catalog.py`)
merges a record with the row before it (`provenance.py`) and keeps the author,
institution and title indexes in step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ingest.index.records import Paper
from ingest.index.tables.database import CatalogDb, Row

# A record from a metadata file or the arXiv API outranks one guessed from a PDF.
SOURCE_RANK = {"pdf": 1, "metadata": 2, "arxiv": 2}


def paper_from_row(row: Row) -> Paper:
    return Paper(
        id=row["id"],
        title=row["title"],
        abstract=row["abstract"],
        authors=row["authors"],
        categories=tuple(row["categories"].split()),
        version=row["version"],
        published=row["published"],
        updated=row["updated"],
        is_arxiv=bool(row["is_arxiv"]),
        comments=row["comments"],
        journal_ref=row["journal_ref"] or "",
        doi=row["doi"] or "",
    )


def row_of(db: CatalogDb, paper_id: str) -> Row | None:
    row: Row | None = db.execute("SELECT * FROM papers WHERE id = ?", (paper_id,)).fetchone()
    return row


def papers(db: CatalogDb, paper_ids: Sequence[str]) -> list[Paper]:
    """The papers among `paper_ids` the catalog holds, in no particular order."""
    found: list[Paper] = []
    for start in range(0, len(paper_ids), 500):
        part = list(paper_ids[start : start + 500])
        query = f"SELECT * FROM papers WHERE id IN ({','.join('?' * len(part))})"
        found += [paper_from_row(r) for r in db.execute(query, part)]
    return found


def published(db: CatalogDb, paper_ids: Sequence[str]) -> dict[str, str]:
    """Each held paper of `paper_ids` with its first-submitted date ("" when not known)."""
    found: dict[str, str] = {}
    for start in range(0, len(paper_ids), 500):
        part = list(paper_ids[start : start + 500])
        query = f"SELECT id, published FROM papers WHERE id IN ({','.join('?' * len(part))})"
        found.update((str(pid), str(date or "")) for pid, date in db.execute(query, part))
    return found


def write(
    db: CatalogDb, paper: Paper, source: str, sources: dict[str, str], arrival: int | None
) -> None:
    """The paper's row, new or updated (a known paper keeps its arrival number)."""
    values = (
        paper.id, int(paper.is_arxiv), paper.version, paper.title, paper.authors,
        paper.abstract, " ".join(paper.categories), paper.published, paper.updated,
        paper.comments, source, json.dumps(sources, sort_keys=True), paper.journal_ref,
        paper.doi, arrival,
    )  # fmt: skip
    db.execute(
        "INSERT INTO papers (id, is_arxiv, version, title, authors, abstract, categories,"
        " published, updated, comments, source, field_sources, journal_ref, doi, arrival)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT (id) DO UPDATE SET is_arxiv = excluded.is_arxiv,"
        " version = excluded.version, title = excluded.title, authors = excluded.authors,"
        " abstract = excluded.abstract, categories = excluded.categories,"
        " published = excluded.published, updated = excluded.updated,"
        " comments = excluded.comments, source = excluded.source,"
        " field_sources = excluded.field_sources, journal_ref = excluded.journal_ref,"
        " doi = excluded.doi",
        values,
    )


def current_pdf(db: CatalogDb, sha256: str, stage: str, path: str) -> str | None:
    """The paper indexed from the PDF with this hash by this PDF stage version, if any,
    when the index has it at `path` with every full-text chunk's position."""
    row = db.execute(
        "SELECT id FROM papers WHERE pdf_sha256 = ? AND pdf_stage = ? AND pdf_path = ?"
        " AND fulltext_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM chunks"
        " WHERE chunks.paper_id = papers.id AND kind != 'abstract' AND boxes IS NULL)"
        " LIMIT 1",
        (sha256, stage, path),
    ).fetchone()
    return None if row is None else str(row["id"])


def set_pdf_paths(db: CatalogDb, paths: dict[str, tuple[str, str]]) -> None:
    """Where each paper's PDF (paper id -> (path, sha256)) is now, in a transaction of its own."""
    with db:
        db.executemany(
            "UPDATE papers SET pdf_path = ?, pdf_sha256 = ? WHERE id = ?",
            [(path, sha256, paper_id) for paper_id, (path, sha256) in paths.items()],
        )


def column_of(
    db: CatalogDb, paper_ids: Sequence[str], column: str
) -> dict[str, tuple[str | None, str]]:
    """(`column`'s value, the record's source) of each paper among `paper_ids`, by id."""
    found: dict[str, tuple[str | None, str]] = {}
    for start in range(0, len(paper_ids), 500):
        part = list(paper_ids[start : start + 500])
        marks = ",".join("?" * len(part))
        query = f"SELECT id, source, {column} AS value FROM papers WHERE id IN ({marks})"
        for row in db.execute(query, part):
            found[row["id"]] = (row["value"], row["source"])
    return found
