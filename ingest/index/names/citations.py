"""Who cites whom in the library: each paper's references, and the keys they resolve by.

`paper_references` holds the entries of a paper's reference list as its PDF prints them
(`ingest/references/`), new for old each time the PDF is read. `paper_titles` keys every
paper's title (`title_key`), kept with the paper's row. A reference resolves to a paper of
the library when it is read, not when it is stored, so a paper ingested after the papers
that cite it is found by them at once, and a deleted one is no longer: by its arXiv id,
else its DOI, else its title's key when that key is long enough to name one paper and
exactly one paper of the library has it. Every lookup goes through an index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ingest.index.names.people import fold
from ingest.index.records import Reference
from ingest.index.tables.database import CatalogDb

# Bumped when `title_key` or `title_opening` changes: the catalog then keys every title again.
TITLE_INDEX_VERSION: Final = "2"
# A title's first words kept apart (`title_opening`): what a question that shortens a title
# to its opening is looked up by.
OPENING_WORDS: Final = 3
# A title shorter than this (letters and digits) or of fewer words names no one paper
# ("Layer normalization", "Fast R-CNN", "Deep learning"): it resolves by id only.
MIN_TITLE_KEY_LETTERS: Final = 20
MIN_TITLE_KEY_WORDS: Final = 3
_NOT_KEYED: Final = re.compile(r"[^\w]+|_")
# Keys looked up per query: well under SQLite's limit of bound values.
_LOOKUP_BATCH: Final = 500

_INSERT: Final = (
    "INSERT INTO paper_references (paper_id, position, title, authors, year, venue,"
    " arxiv_id, doi, title_key) VALUES (?,?,?,?,?,?,?,?,?)"
)


@dataclass(frozen=True)
class StoredReference:
    """A stored reference and the library's paper it resolves to (None: not in the library)."""

    reference: Reference
    resolved_id: str | None


def title_key(title: str) -> str:
    """A title's letters and digits, folded (case, accents, TeX, punctuation aside), words
    separated by one space; "" for a title too short to name one paper."""
    key = " ".join(_NOT_KEYED.sub(" ", fold(title)).split())
    letters = sum(char.isalnum() for char in key)
    if letters < MIN_TITLE_KEY_LETTERS or len(key.split()) < MIN_TITLE_KEY_WORDS:
        return ""
    return key


def key_words(text: str) -> list[str]:
    """`text`'s words as title keys fold them: "Pre-trained Müller" -> ["pre", "trained",
    "muller"]."""
    return _NOT_KEYED.sub(" ", fold(text)).split()


def title_opening(title: str) -> str:
    """The title's first `OPENING_WORDS` key words ("an image is" for "An Image is Worth
    16x16 Words"); "" for a title of fewer words."""
    words = key_words(title)[:OPENING_WORDS]
    return " ".join(words) if len(words) == OPENING_WORDS else ""


def index_title(db: CatalogDb, paper_id: str, title: str) -> None:
    """Within the caller's transaction: the paper's title key and opening, new for old."""
    db.execute(
        "INSERT INTO paper_titles (paper_id, title_key, opening) VALUES (?, ?, ?)"
        " ON CONFLICT (paper_id) DO UPDATE SET title_key = excluded.title_key,"
        " opening = excluded.opening",
        (paper_id, title_key(title), title_opening(title)),
    )


def reindex_titles(db: CatalogDb) -> int:
    """Within the caller's transaction: every paper's title key and opening made again."""
    db.execute("DELETE FROM paper_titles")
    papers = db.execute("SELECT id, title FROM papers").fetchall()
    db.executemany(
        "INSERT INTO paper_titles (paper_id, title_key, opening) VALUES (?, ?, ?)",
        ((paper_id, title_key(title), title_opening(title)) for paper_id, title in papers),
    )
    return len(papers)


def opening_with(db: CatalogDb, openings: Sequence[str]) -> list[tuple[str, str, str]]:
    """(id, title, first published) of the papers whose title opens with one of
    `openings` (each as `title_opening` makes it), through the openings' index."""
    wanted = sorted({o for o in openings if o})
    found: list[tuple[str, str, str]] = []
    for start in range(0, len(wanted), _LOOKUP_BATCH):
        batch = wanted[start : start + _LOOKUP_BATCH]
        rows = db.execute(
            "SELECT p.id, p.title, p.published FROM paper_titles t"
            " JOIN papers p ON p.id = t.paper_id"
            # `opening != ''` lets the partial index serve.
            f" WHERE t.opening != '' AND t.opening IN ({','.join('?' * len(batch))})",
            batch,
        )
        found.extend((str(r[0]), str(r[1]), str(r[2] or "")) for r in rows)
    return found


def replace_references(db: CatalogDb, paper_id: str, references: Sequence[Reference]) -> None:
    """Within the caller's transaction: the paper's references, new for old."""
    db.execute("DELETE FROM paper_references WHERE paper_id = ?", (paper_id,))
    db.executemany(
        _INSERT,
        [
            (paper_id, position, r.title, r.authors, r.year, r.venue, r.arxiv_id, r.doi,
             title_key(r.title))
            for position, r in enumerate(references)
        ],
    )  # fmt: skip


def forget_paper(db: CatalogDb, paper_id: str) -> None:
    """Within the caller's transaction: the paper's references and title key."""
    db.execute("DELETE FROM paper_references WHERE paper_id = ?", (paper_id,))
    db.execute("DELETE FROM paper_titles WHERE paper_id = ?", (paper_id,))


def references_of(db: CatalogDb, paper_id: str) -> list[StoredReference]:
    """The paper's references in the order printed, each resolved against the library."""
    rows = db.execute(
        "SELECT title, authors, year, venue, arxiv_id, doi, title_key FROM paper_references"
        " WHERE paper_id = ? ORDER BY position",
        (paper_id,),
    ).fetchall()
    return [StoredReference(_reference(row), _resolve(db, paper_id, row)) for row in rows]


def citing_ids(db: CatalogDb, paper_id: str) -> list[str]:
    """The library's papers with a reference that resolves to this paper, each once."""
    row = db.execute(
        "SELECT papers.doi, paper_titles.title_key FROM papers"
        " LEFT JOIN paper_titles ON paper_titles.paper_id = papers.id WHERE papers.id = ?",
        (paper_id,),
    ).fetchone()
    if row is None:
        return []
    doi, key = (row[0] or "").lower(), row[1] or ""
    candidates = db.execute(
        "SELECT paper_id, title, authors, year, venue, arxiv_id, doi, title_key"
        " FROM paper_references WHERE arxiv_id = ? AND arxiv_id != ''"
        " UNION SELECT paper_id, title, authors, year, venue, arxiv_id, doi, title_key"
        " FROM paper_references WHERE doi = ? AND doi != ''"
        " UNION SELECT paper_id, title, authors, year, venue, arxiv_id, doi, title_key"
        " FROM paper_references WHERE title_key = ? AND title_key != ''",
        (paper_id, doi, key),
    ).fetchall()
    citing = {str(c[0]) for c in candidates if _resolve(db, str(c[0]), c[1:]) == paper_id}
    return sorted(citing)


def shared_reference_counts(db: CatalogDb, paper_id: str) -> dict[str, int]:
    """The library's other papers that cite works this paper cites, each with how many of
    this paper's references it shares (the same arXiv id, DOI or title key), in or out of
    the library. One indexed lookup per key column, over the paper's own references."""
    rows = db.execute(
        "SELECT position, arxiv_id, doi, title_key FROM paper_references WHERE paper_id = ?",
        (paper_id,),
    ).fetchall()
    shared: dict[str, set[int]] = {}
    for column, at in (("arxiv_id", 1), ("doi", 2), ("title_key", 3)):
        positions: dict[str, set[int]] = {}
        for row in rows:
            if row[at]:
                positions.setdefault(str(row[at]), set()).add(int(row[0]))
        values = sorted(positions)
        for start in range(0, len(values), _LOOKUP_BATCH):
            batch = values[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(batch))
            found = db.execute(
                f"SELECT DISTINCT paper_id, {column} FROM paper_references"
                f" WHERE {column} IN ({marks}) AND paper_id != ?",
                (*batch, paper_id),
            )
            for other, value in found:
                shared.setdefault(str(other), set()).update(positions[str(value)])
    return {other: len(matched) for other, matched in shared.items()}


def _reference(row: Sequence[object]) -> Reference:
    title, authors, year, venue, arxiv_id, doi = row[:6]
    return Reference(
        str(title), str(authors), None if year is None else int(str(year)), str(venue),
        str(arxiv_id), str(doi),
    )  # fmt: skip


def _resolve(db: CatalogDb, citing: str, row: Sequence[object]) -> str | None:
    """The library's paper a reference (title, authors, year, venue, arXiv id, DOI, title
    key) names: by arXiv id, else DOI, else a title key only one paper has; never the
    citing paper itself."""
    found, _ = papers_named(db, str(row[4]), str(row[5]), str(row[6]))
    return found[0] if len(found) == 1 and found[0] != citing else None


def papers_named(db: CatalogDb, arxiv_id: str, doi: str, key: str) -> tuple[list[str], str]:
    """The library's papers an arXiv id (without version), a DOI (lower case) or a title key
    name, tried in that order, and which of the three found them ("arxiv_id", "doi",
    "title"); ([], "") when none does. A title key may name two papers."""
    if arxiv_id and (found := _ids(db, "SELECT id FROM papers WHERE id = ?", arxiv_id)):
        return found, "arxiv_id"
    doi_query = "SELECT id FROM papers WHERE lower(doi) = ? AND doi != ''"
    if doi and (found := _ids(db, doi_query, doi)):
        return found, "doi"
    title_query = (
        "SELECT paper_id FROM paper_titles WHERE title_key = ? AND title_key != '' LIMIT 2"
    )
    if key and (found := _ids(db, title_query, key)):
        return found, "title"
    return [], ""


def _ids(db: CatalogDb, query: str, value: str) -> list[str]:
    return [str(row[0]) for row in db.execute(query, (value,))]
