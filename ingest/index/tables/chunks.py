"""The catalog's chunks: a paper's units ("abstract", "fulltext") and the chunks each
holds, their printed positions, and the units whose other two sides may be half written.

Each function runs on the caller's `CatalogDb`; `Catalog` (`ingest/index/catalog.py`)
is how the rest of the index reaches them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.index.records import Box, Chunk, Paper, chunk_place
from ingest.index.tables.database import CatalogDb

# A unit is what is written at once: a paper's abstract, or everything its PDF gave.
UNITS = ("abstract", "fulltext")
# Chunk kinds: a PDF's unit holds body text ("fulltext") and the captions, tables
# and footnotes taken out of it.
UNIT_KINDS = {"abstract": ("abstract",), "fulltext": ("fulltext", "caption", "table", "footnote")}
KINDS = tuple(kind for kinds in UNIT_KINDS.values() for kind in kinds)
Unit = tuple[str, str]  # (paper id, unit: "abstract" or "fulltext")


def unit_of(kind: str) -> str:
    """The unit a chunk of `kind` belongs to."""
    return "abstract" if kind == "abstract" else "fulltext"


def _kinds_sql(unit: str) -> tuple[str, tuple[str, ...]]:
    kinds = UNIT_KINDS.get(unit, (unit,))
    return f"kind IN ({','.join('?' * len(kinds))})", kinds


@dataclass(frozen=True)
class ChunkRow:
    """One chunk as the catalog stores it, without its paper's record."""

    id: str
    paper_id: str
    kind: str
    number: int
    section: str
    page_start: int  # 0 for an abstract
    page_end: int
    text: str


_CHUNK_COLUMNS = ", ".join(field.name for field in dataclasses.fields(ChunkRow))


def ids(db: CatalogDb, paper_id: str, unit: str | None = None) -> list[str]:
    """The ids of a paper's chunks, or of one of its units'."""
    if unit is None:
        found = db.execute("SELECT id FROM chunks WHERE paper_id = ?", (paper_id,))
    else:
        where, kinds = _kinds_sql(unit)
        found = db.execute(
            f"SELECT id FROM chunks WHERE paper_id = ? AND {where}", (paper_id, *kinds)
        )
    return [str(r["id"]) for r in found]


def indexed_units(db: CatalogDb, paper_ids: Iterable[str], unit: str) -> list[Unit]:
    """The units `unit` among these papers that have chunks."""
    wanted = list(dict.fromkeys(paper_ids))
    where, kinds = _kinds_sql(unit)
    found: list[Unit] = []
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        marks = ",".join("?" * len(part))
        query = f"SELECT DISTINCT paper_id FROM chunks WHERE {where} AND paper_id IN ({marks})"
        found.extend((str(r[0]), unit) for r in db.execute(query, [*kinds, *part]))
    return found


def delete_unit(db: CatalogDb, paper_id: str, unit: str) -> None:
    where, kinds = _kinds_sql(unit)
    db.execute(f"DELETE FROM chunks WHERE paper_id = ? AND {where}", (paper_id, *kinds))


def insert(db: CatalogDb, chunks: Sequence[Chunk]) -> None:
    db.executemany(
        "INSERT INTO chunks (id, paper_id, kind, number, section, page_start, page_end,"
        " text, boxes) VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (c.id, c.paper_id, c.kind, c.number, c.section, c.page_start, c.page_end, c.text,
             _boxes_json(c.boxes))
            for c in chunks
        ],
    )  # fmt: skip


def set_boxes(db: CatalogDb, boxes: dict[str, tuple[Box, ...]]) -> None:
    """Record where chunks are printed (by chunk id), in a transaction of its own."""
    with db:
        db.executemany(
            "UPDATE chunks SET boxes = ? WHERE id = ?",
            [(_boxes_json(found), chunk_id) for chunk_id, found in boxes.items()],
        )


def boxes_of(db: CatalogDb, chunk_id: str) -> tuple[Box, ...] | None:
    """Where a chunk is printed; None when not recorded (or no such chunk)."""
    row = db.execute("SELECT boxes FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
    if row is None or row["boxes"] is None:
        return None
    return tuple(Box.from_json(value) for value in json.loads(row["boxes"]))


def without_boxes(db: CatalogDb, paper_ids: Iterable[str]) -> set[str]:
    """The papers among `paper_ids` whose full-text chunks lack recorded positions."""
    wanted = list(dict.fromkeys(paper_ids))
    missing: set[str] = set()
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        marks = ",".join("?" * len(part))
        query = (
            f"SELECT DISTINCT paper_id FROM chunks WHERE paper_id IN ({marks})"
            " AND kind = 'fulltext' AND boxes IS NULL"
        )
        missing.update(str(r["paper_id"]) for r in db.execute(query, part))
    return missing


def of_unit(db: CatalogDb, paper: Paper, unit: str) -> list[Chunk]:
    """The chunks of one of `paper`'s units as stored, each with the paper's record."""
    where, kinds = _kinds_sql(unit)
    rows = db.execute(
        f"SELECT * FROM chunks WHERE paper_id = ? AND {where} ORDER BY number",
        (paper.id, *kinds),
    )
    return [
        Chunk(r["id"], paper.id, r["kind"], r["number"], r["text"], r["section"],
              r["page_start"], r["page_end"], paper)
        for r in rows
    ]  # fmt: skip


def rows(db: CatalogDb, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]:
    """The stored chunks among `chunk_ids`, by id; ids the catalog lacks are left out."""
    marks = ",".join("?" * len(chunk_ids))
    query = f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN ({marks})"
    return {str(r["id"]): ChunkRow(*r) for r in db.execute(query, list(chunk_ids))}


def papers_of(db: CatalogDb, chunk_ids: Sequence[str]) -> dict[str, str]:
    """The paper of each stored chunk among `chunk_ids`, by chunk id. A chunk's id opens
    with its paper's (`paper#kind-N@digest`, `ingest/chunking.py`): only the ids are read,
    from their index alone (a third of the time of reading each chunk's row)."""
    marks = ",".join("?" * len(chunk_ids))
    held = [
        str(r["id"])
        for r in db.execute(f"SELECT id FROM chunks WHERE id IN ({marks})", list(chunk_ids))
    ]
    found = {c: c.rpartition("#")[0] for c in held if chunk_place(c) is not None}
    others = [c for c in held if c not in found]
    if others:
        marks = ",".join("?" * len(others))
        query = f"SELECT id, paper_id FROM chunks WHERE id IN ({marks})"
        found |= {str(r["id"]): str(r["paper_id"]) for r in db.execute(query, others)}
    return found


def sample(db: CatalogDb, n: int) -> dict[str, str]:
    """Up to `n` chunk ids drawn at random, with their papers' ids."""
    found = db.execute("SELECT id, paper_id FROM chunks ORDER BY RANDOM() LIMIT ?", (n,))
    return {str(r[0]): str(r[1]) for r in found}


def all_units(db: CatalogDb) -> list[Unit]:
    found = db.execute("SELECT DISTINCT paper_id, kind FROM chunks ORDER BY 1, 2")
    return list(dict.fromkeys((str(r[0]), unit_of(str(r[1]))) for r in found))


def count(db: CatalogDb) -> int:
    return int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])


def count_by_kind(db: CatalogDb) -> dict[str, int]:
    found = dict(db.execute("SELECT kind, COUNT(*) FROM chunks GROUP BY kind").fetchall())
    return {kind: int(found.get(kind, 0)) for kind in KINDS}


# Units whose Chroma side may be half written


def mark_pending(db: CatalogDb, units: Iterable[Unit]) -> None:
    with db:
        db.executemany(
            "INSERT INTO pending (paper_id, kind) VALUES (?, ?) ON CONFLICT DO NOTHING",
            list(units),
        )


def clear_pending(db: CatalogDb, units: Iterable[Unit]) -> None:
    with db:
        db.executemany("DELETE FROM pending WHERE paper_id = ? AND kind = ?", list(units))


def pending_units(db: CatalogDb) -> list[Unit]:
    found = db.execute("SELECT paper_id, kind FROM pending ORDER BY paper_id, kind")
    return [(str(r["paper_id"]), str(r["kind"])) for r in found]


def _boxes_json(boxes: tuple[Box, ...] | None) -> str | None:
    return None if boxes is None else json.dumps([b.as_json() for b in boxes])
