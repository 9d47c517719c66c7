"""The catalog: papers and their chunks, in a SQLite file or a PostgreSQL database.

It is the record of what the index holds: Chroma (vectors) and the lexical
index (BM25) beside it in the data dir hold the same chunk ids. Every
change to a paper's abstract or full text (a "unit") is one transaction
here; `pending` remembers units whose other two sides may be half written,
so a run that was killed can be put right by the next one.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from sqlalchemy.exc import SQLAlchemyError

from ingest.errors import PaperchatError
from ingest.index.names import citations, institutions, people, researchers
from ingest.index.names.people import Person
from ingest.index.records import Box, Chunk, Paper, Reference
from ingest.index.tables import changes, chunks, papers, schema
from ingest.index.tables.chunks import UNITS, ChunkRow, Unit
from ingest.index.tables.database import CatalogDb, CommitGuard, shown_location
from ingest.index.tables.provenance import TRACKED_FIELDS, field_sources, merge_fields, origin_of

PdfFile = tuple[str, int, str, str, str]  # (sha256, pages, name stem, PDF stage, absolute path)


class CatalogError(PaperchatError):
    """The catalog file cannot be opened or migrated: not SQLite, locked too long, a failed
    migration."""


@dataclass(frozen=True)
class UnitState:
    digest: str | None
    source: str | None


@dataclass(frozen=True)
class PaperRow:
    """A paper's record with what the catalog knows of how it was indexed."""

    paper: Paper
    source: str  # where the record came from: a key of papers.SOURCE_RANK
    has_fulltext: bool
    field_sources: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class PdfRecord:
    """The PDF a paper's full text was read from, as ingest recorded it."""

    path: str  # absolute; "" in an index built before paths were recorded
    sha256: str
    pages: int


class Catalog:
    """The catalog at `location` (a SQLite file's path, or a database URL such as
    `postgresql://host/db`), brought to the latest schema as it opens
    (`ingest/index/tables/schema.py`; SchemaError for a catalog newer than this code)."""

    def __init__(self, location: Path | str) -> None:
        try:
            self.db = CatalogDb(location)
        except (SQLAlchemyError, OSError, ValueError) as e:
            raise CatalogError(f"cannot open the catalog {shown_location(location)!r}: {e}") from e
        try:
            self._prepare(self.db.where)
        except (sqlite3.DatabaseError, SQLAlchemyError, psycopg.Error) as e:
            self.db.close()
            raise CatalogError(f"cannot open the catalog {self.db.where!r}: {e}") from e
        except BaseException:
            self.db.close()
            raise

    @property
    def shared(self) -> bool:
        """Whether other machines may write this catalog (a database server, not a file)."""
        return self.db.dialect != "sqlite"

    def _prepare(self, where: str) -> None:
        schema.upgrade(self.db, where)
        self._index_once("author_index", people.INDEX_VERSION, people.reindex_all)
        self._index_once("title_index", citations.TITLE_INDEX_VERSION, citations.reindex_titles)
        self._index_once("researcher_ids", researchers.IDS_VERSION, researchers.record_all)
        self._index_once(
            "record_affiliations", institutions.RECORD_INDEX_VERSION, institutions.reindex_records
        )

    def _index_once(self, key: str, version: str, reindex: Callable[[CatalogDb], int]) -> None:
        """A catalog made before an index of its papers (the authors', the titles'), or with
        older keys, gets it, once: the first process to take the write lock builds it, the
        others find it built."""
        if self.get_meta(key) == version:
            return
        with self.db:
            self.db.lock("index")
            if self.get_meta(key) != version:
                reindex(self.db)
                schema.write_meta(self.db, key, version)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self, guard: CommitGuard | None = None) -> Iterator[CatalogDb]:
        """One write transaction: it holds the catalog's write lock from its start (so the
        change log's numbers follow the commit order). `guard`, when given, may refuse the
        transaction by raising (a queue's lease lost): it runs once the lock is held, so a
        writer that has already lost its lease writes nothing, and again just before the
        commit, for a lease lost while the transaction ran."""
        with self.db:
            self.db.lock("writes")
            if guard is not None:
                guard(self.db)
                self.db.guard(guard)
            yield self.db
            changes.bump_generation(self.db)

    def generation(self) -> int:
        """A number every write transaction raises, in every process (`tables/changes.py`)."""
        return changes.generation(self.db)

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row["value"])

    def set_meta(self, key: str, value: str) -> None:
        with self.db:
            schema.write_meta(self.db, key, value)

    # Papers

    def get_paper(self, paper_id: str) -> Paper | None:
        row = papers.row_of(self.db, paper_id)
        return None if row is None else papers.paper_from_row(row)

    def papers_among(self, paper_ids: Sequence[str]) -> list[Paper]:
        """The papers among `paper_ids` the catalog holds, in one query per 500."""
        return papers.papers(self.db, list(dict.fromkeys(paper_ids)))

    def published_among(self, paper_ids: Sequence[str]) -> dict[str, str]:
        """The first-submitted date ("" when not known) of each paper of `paper_ids` held."""
        return papers.published(self.db, paper_ids)

    def paper_row(self, paper_id: str) -> PaperRow | None:
        row = papers.row_of(self.db, paper_id)
        if row is None:
            return None
        return PaperRow(
            papers.paper_from_row(row), row["source"], row["fulltext_hash"] is not None,
            field_sources(row),
        )  # fmt: skip

    def resolve_id(self, name: str) -> str | None:
        """A paper's id from its id or its PDF's file name without extension."""
        query = "SELECT id FROM papers WHERE id = ? OR pdf_file = ? ORDER BY id = ? DESC LIMIT 1"
        row = self.db.execute(query, (name, name, name)).fetchone()
        return None if row is None else str(row["id"])

    def unit_states(self, paper_ids: Iterable[str], kind: str) -> dict[str, UnitState]:
        column = "abstract_hash" if kind == "abstract" else "fulltext_hash"
        found = papers.column_of(self.db, list(dict.fromkeys(paper_ids)), column)
        return {paper_id: UnitState(*values) for paper_id, values in found.items()}

    def _upsert_paper(self, paper: Paper, source: str) -> None:
        row = papers.row_of(self.db, paper.id)
        merged, sources = merge_fields(paper, origin_of(source), row)
        # A new paper takes its place in the order papers arrived; a known one keeps it.
        arrival = changes.record(self.db, [(paper.id, changes.ARRIVAL)]) if row is None else None
        if row is not None and papers.SOURCE_RANK[row["source"]] > papers.SOURCE_RANK[source]:
            # A PDF after a record: the record's identity fields stay, gaps are filled.
            kept = papers.paper_from_row(row)
            merged = dataclasses.replace(
                kept, **{name: getattr(merged, name) for name in TRACKED_FIELDS}
            )
            source = row["source"]
        papers.write(self.db, merged, source, sources, arrival)
        if (
            row is not None
            and row["authors"] != merged.authors
            and people.surnames(row["authors"]) != people.surnames(merged.authors)
        ):
            # Who is where is kept by author position: a changed author list would put
            # people at others' institutions, until page 1 of the PDF is read again.
            institutions.forget_placements(self.db, merged.id)
        people.index_authors(self.db, merged.id, merged.authors)
        researchers.record_ids(self.db, (n.key for n in people.split_authors(merged.authors)))
        affiliations = institutions.record_affiliations(merged.authors)
        institutions.replace_affiliations(self.db, merged.id, "record", affiliations)
        institutions.record_rors(self.db, merged.authors)
        citations.index_title(self.db, merged.id, merged.title)

    # Authors

    def person(self, name: str) -> Person | None:
        """Who an author name stands for among the indexed authors (`names/people.py`)."""
        return people.find_person(self.db, name)

    def people(self, names: Iterable[str]) -> dict[str, Person | None]:
        """`person` for each of `names`, each surname's indexed names read once."""
        return people.find_people(self.db, names)

    def paper_ids_of(self, person: Person) -> list[str]:
        return people.person_paper_ids(self.db, person)

    def researcher_key(self, researcher_id: str) -> str | None:
        """The name key a researcher id was made from (`ingest/index/names/researchers.py`)."""
        return researchers.key_of(self.db, researcher_id)

    def bylines(self, paper_ids: list[str]) -> dict[str, list[tuple[str, str, str]]]:
        """Each paper's authors in order: (as written, given names, surname), keyed."""
        return researchers.bylines(self.db, paper_ids)

    def replace_affiliations(
        self, paper_id: str, source: str, affiliations: Sequence[institutions.Affiliation]
    ) -> None:
        """Within the caller's transaction: the institutions a paper's PDF or record names."""
        institutions.replace_affiliations(self.db, paper_id, source, affiliations)

    def replace_placements(self, paper_id: str, placed: Sequence[tuple[int, str]]) -> None:
        """Within the caller's transaction: who is where by the paper's page 1."""
        institutions.replace_placements(self.db, paper_id, placed)

    def papers_of(self, person: Person) -> list[Paper]:
        """The person's papers, newest first (by first version, else last update)."""
        found = papers.papers(self.db, self.paper_ids_of(person))
        return sorted(found, key=lambda p: (p.published or p.updated, p.id), reverse=True)

    def current_pdf(self, sha256: str, stage: str, path: str) -> str | None:
        """The paper indexed from the PDF with this hash by this PDF stage version, if any,
        when the index has it at `path` with every full-text chunk's position (an index
        made before positions were recorded, or a file moved, needs it read again)."""
        return papers.current_pdf(self.db, sha256, stage, path)

    def note_pdf_stage(self, paper: Paper, sha256: str, stage: str) -> None:
        """Record that this PDF stage read the paper's PDF and found its text unchanged;
        what it read on page 1 replaces the fields an older stage read there (a record's
        fields stay: `merge_fields`)."""
        with self.transaction():
            self.db.execute(
                "UPDATE papers SET pdf_stage = ? WHERE id = ? AND pdf_sha256 = ?",
                (stage, paper.id, sha256),
            )
            if self.db.execute("SELECT 1 FROM papers WHERE id = ?", (paper.id,)).fetchone():
                self._upsert_paper(paper, "pdf")

    # References (`ingest/index/names/citations.py`)

    def replace_references(self, paper_id: str, references: Sequence[Reference]) -> None:
        """Within the caller's transaction: the references a paper's PDF prints, new for old."""
        citations.replace_references(self.db, paper_id, references)

    def references_of(self, paper_id: str) -> list[citations.StoredReference]:
        """The paper's references, each with the library's paper it names (or None)."""
        return citations.references_of(self.db, paper_id)

    def citing_papers(self, paper_id: str) -> list[Paper]:
        """The library's papers whose references name this one, by id."""
        ids = citations.citing_ids(self.db, paper_id)
        found = {paper.id: paper for paper in self.papers_among(ids)}
        return [found[citing] for citing in ids if citing in found]

    # Chunks

    def chunk_ids(self, paper_id: str, unit: str | None = None) -> list[str]:
        """The ids of a paper's chunks, or of one of its units' ("abstract", "fulltext")."""
        return chunks.ids(self.db, paper_id, unit)

    def indexed_units(self, paper_ids: Iterable[str], unit: str) -> list[Unit]:
        """The units `unit` among these papers that have chunks in the index."""
        return chunks.indexed_units(self.db, paper_ids, unit)

    def set_boxes(self, boxes: dict[str, tuple[Box, ...]]) -> None:
        """Record where chunks are printed (by chunk id), e.g. for an index built before."""
        chunks.set_boxes(self.db, boxes)

    def chunk_boxes(self, chunk_id: str) -> tuple[Box, ...] | None:
        """Where a chunk is printed; None when not recorded (or no such chunk)."""
        return chunks.boxes_of(self.db, chunk_id)

    def fulltext_without_boxes(self, paper_ids: Iterable[str]) -> set[str]:
        """The papers among `paper_ids` whose full-text chunks lack recorded positions."""
        return chunks.without_boxes(self.db, paper_ids)

    def set_pdf_paths(self, paths: dict[str, tuple[str, str]]) -> None:
        """Where each paper's PDF (paper id -> (path, sha256)) is now, for an unchanged text."""
        papers.set_pdf_paths(self.db, paths)

    def pdf_record(self, paper_id: str) -> PdfRecord | None:
        """The PDF behind a paper's full text; None for a paper without one."""
        row = papers.row_of(self.db, paper_id)
        if row is None or not row["pdf_sha256"]:
            return None
        return PdfRecord(row["pdf_path"] or "", row["pdf_sha256"], int(row["pdf_pages"] or 0))

    def replace_unit(
        self, paper: Paper, source: str, kind: str, digest: str, new_chunks: Sequence[Chunk],
        pdf: PdfFile | None = None,
    ) -> None:  # fmt: skip
        """Within the caller's transaction: the paper row and one unit's chunks, new for old."""
        self._upsert_paper(paper, source)
        chunks.delete_unit(self.db, paper.id, kind)
        chunks.insert(self.db, new_chunks)
        changes.record(self.db, [(paper.id, kind)])
        if kind == "abstract":
            self.db.execute("UPDATE papers SET abstract_hash = ? WHERE id = ?", (digest, paper.id))
        else:
            sha256, pages, name, stage, path = pdf if pdf is not None else ("", 0, "", "", "")
            self.db.execute(
                "UPDATE papers SET fulltext_hash = ?, fulltext_version = ?, pdf_sha256 = ?,"
                " pdf_pages = ?, pdf_file = ?, pdf_stage = ?, pdf_path = ? WHERE id = ?",
                (digest, paper.version, sha256, pages, name, stage, path, paper.id),
            )

    def delete_paper(self, paper_id: str) -> int:
        """Within the caller's transaction: the paper and all its chunks; returns chunks removed."""
        removed = sum(len(self.chunk_ids(paper_id, unit)) for unit in UNITS)
        for unit in UNITS:
            chunks.delete_unit(self.db, paper_id, unit)
        self.db.execute("DELETE FROM papers WHERE id = ?", (paper_id,))
        changes.record(self.db, [(paper_id, unit) for unit in UNITS])
        people.unindex_authors(self.db, paper_id)
        institutions.unindex_institutions(self.db, paper_id)
        citations.forget_paper(self.db, paper_id)
        return removed

    # The change log the lexical replicas follow (`ingest/index/tables/changes.py`)

    def note_changed(self, units: Iterable[Unit]) -> None:
        """Within the caller's transaction: log units whose stored chunks a replica must
        read again (a unit whose paper's record changed under it)."""
        changes.record(self.db, units)

    def last_change(self) -> int:
        return changes.last_seq(self.db)

    def changes_after(self, seq: int, limit: int) -> list[changes.Change]:
        return changes.changes_after(self.db, seq, limit)

    def first_change(self) -> int:
        return changes.first_seq(self.db)

    def prune_changes(self, keep: int) -> int:
        return changes.prune(self.db, keep)

    # Units whose Chroma side may be half written

    def mark_pending(self, units: Iterable[Unit]) -> None:
        chunks.mark_pending(self.db, units)

    def clear_pending(self, units: Iterable[Unit]) -> None:
        chunks.clear_pending(self.db, units)

    def pending_units(self) -> list[Unit]:
        return chunks.pending_units(self.db)

    # Reading

    def chunk_count(self) -> int:
        return chunks.count(self.db)

    def sample_chunks(self, n: int) -> dict[str, str]:
        """Up to `n` chunk ids drawn at random, with their papers' ids."""
        return chunks.sample(self.db, n)

    def all_units(self) -> list[Unit]:
        return chunks.all_units(self.db)

    def unit_chunks(self, paper_id: str, unit: str) -> list[Chunk]:
        """The chunks of one unit as stored, with their paper's record."""
        paper = self.get_paper(paper_id)
        return [] if paper is None else chunks.of_unit(self.db, paper, unit)

    def chunk_rows(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]:
        """The stored chunks among `chunk_ids`, by id; ids the catalog lacks are left out
        (`chunk_papers`: only each one's paper id, reading no text)."""
        return chunks.rows(self.db, chunk_ids)

    def chunk_papers(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        return chunks.papers_of(self.db, chunk_ids)

    def paper_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])

    def stats(self) -> dict[str, int]:
        with_fulltext = "SELECT COUNT(*) FROM papers WHERE fulltext_hash IS NOT NULL"
        return {
            "papers": self.paper_count(),
            "chunks": chunks.count(self.db),
            **chunks.count_by_kind(self.db),
            "papers_with_fulltext": self.db.execute(with_fulltext).fetchone()[0],
        }
