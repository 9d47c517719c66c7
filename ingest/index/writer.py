"""Writes units (one paper's abstract or full text) to both indexes, crash-safely.

The catalog is the record of what the index holds. The order of writes is
what makes a killed run harmless:
1. the units are marked pending in the catalog;
2. their new chunks go to Chroma (ids carry a content hash, so old and new
   never share an id);
3. one catalog transaction swaps the chunks and records the units' hashes;
4. the lexical index drops the units' old chunks and adds the new ones;
5. the old chunks leave Chroma;
6. the other unit of the same paper, when indexed, gets the paper's new record
   in Chroma's metadata and the lexical index (a record that arrives after a
   PDF changes what its full-text chunks are filtered and found by);
7. the pending marks are cleared.
The papers' names (`ingest/index/name_catalog.py`) are mined again in step 3's transaction,
which also logs the changed units (`ingest/index/tables/changes.py`).

When the catalog is shared by several machines (PostgreSQL), the indexer has
no lexical index: steps 4 and 6's lexical halves are each serving node's
replica following the change log (`ingest/index/lexical/replica.py`).
A run that starts with pending units first deletes from Chroma whatever the
catalog does not list for them and rewrites them in the lexical index from
the catalog, so all three agree again; units whose hash was not recorded
are simply done again. The metadata of the pending units' chunks that
Chroma holds is written again from the catalog.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ingest.index.catalog import Catalog, PdfFile
from ingest.index.lexical.bm25 import LexicalIndex, rebuild_all, rebuild_units
from ingest.index.name_catalog import NameCatalog
from ingest.index.records import Chunk, Paper, Reference
from ingest.index.tables.chunks import UNITS, Unit
from ingest.index.tables.database import CommitGuard
from ingest.index.vectors.store import ChunkStore
from ingest.jobs.failpoints import failpoint


@dataclass(frozen=True)
class UnitWork:
    """One unit ready to be written: its chunks, their hash, where it came from."""

    paper: Paper
    kind: str
    source: str  # "metadata", "arxiv" or "pdf"
    origin: str  # the file or URL, for messages
    digest: str
    chunks: tuple[Chunk, ...]
    # For full text read from a PDF: its hash, pages, file name stem, the PDF stage's
    # version and the file's absolute path.
    pdf: PdfFile | None = None
    pages_fallback: int = 0  # pages of the PDF read as plain text: their layout was unreadable
    # The references a PDF prints (`ingest/references/`); None for a unit not read from one.
    references: tuple[Reference, ...] | None = None
    # The institutions its page 1 names (`ingest/pdf/front/affiliations.py`); None likewise.
    affiliations: tuple[tuple[str, str], ...] | None = None
    # Who is where by its page 1: (the author's place in the byline, institution); None
    # likewise (`ingest/pdf/front/placements.py`).
    placed: tuple[tuple[int, str], ...] | None = None

    @property
    def unit(self) -> Unit:
        return (self.paper.id, self.kind)


class Indexer:
    def __init__(self, catalog: Catalog, store: ChunkStore, lexical: LexicalIndex | None) -> None:
        self.catalog = catalog
        self.store = store
        self.lexical = lexical
        self.names = NameCatalog(catalog)

    def recover(self) -> int:
        """Put right what a killed run left half written; returns Chroma ids removed."""
        removed = 0
        pending = self.catalog.pending_units()
        for paper_id, kind in pending:
            known = set(self.catalog.chunk_ids(paper_id, kind))
            stored = self.store.ids_of(paper_id, kind)
            orphans = [i for i in stored if i not in known]
            self.store.delete(orphans)
            removed += len(orphans)
            kept = set(stored) & known
            self.store.refresh_metadata(
                [c for c in self.catalog.unit_chunks(paper_id, kind) if c.id in kept]
            )
        if self.lexical is not None:
            rebuild_units(self.lexical, self.catalog, pending)
            if self.lexical.count() != self.catalog.chunk_count():
                rebuild_all(self.lexical, self.catalog)
        self.catalog.clear_pending(pending)
        self.names.backfill()
        return removed

    def write(
        self, works: Sequence[UnitWork], vectors: np.ndarray, guard: CommitGuard | None = None
    ) -> int:
        """Write the units; `vectors` holds one row per chunk, in order. Returns chunks deleted.
        `guard` may refuse the catalog's commit (`Catalog.transaction`); the units then stay
        pending, for whoever does them again."""
        units = [w.unit for w in works]
        others = self._other_units(works)
        self.catalog.mark_pending([*units, *others])
        self.store.upsert([c for w in works for c in w.chunks], vectors)
        failpoint("after-chroma-upsert")
        old_ids: list[str] = []
        with self.catalog.transaction(guard):
            for work in works:
                old_ids.extend(self.catalog.chunk_ids(*work.unit))
                self.catalog.replace_unit(
                    work.paper, work.source, work.kind, work.digest, work.chunks, work.pdf
                )
                if work.references is not None:
                    self.catalog.replace_references(work.paper.id, work.references)
                if work.affiliations is not None:
                    self.catalog.replace_affiliations(work.paper.id, "pdf", work.affiliations)
                if work.placed is not None:
                    self.catalog.replace_placements(work.paper.id, work.placed)
            self.names.replace_papers(w.paper.id for w in works)
            self.catalog.note_changed(others)
        if self.lexical is not None:
            self.lexical.replace_units(units, [c for w in works for c in w.chunks])
        new_ids = {c.id for w in works for c in w.chunks}
        stale = [i for i in old_ids if i not in new_ids]
        self.store.delete(stale)
        if others:
            refreshed = [c for unit in others for c in self.catalog.unit_chunks(*unit)]
            self.store.refresh_metadata(refreshed)
            if self.lexical is not None:
                self.lexical.replace_units(others, refreshed)
        self.catalog.clear_pending([*units, *others])
        return len(old_ids)

    def _other_units(self, works: Sequence[UnitWork]) -> list[Unit]:
        """The indexed units of the written papers that this write does not replace."""
        writing = {w.unit for w in works}
        others: list[Unit] = []
        for unit in UNITS:
            papers = [w.paper.id for w in works if w.kind != unit]
            others.extend(u for u in self.catalog.indexed_units(papers, unit) if u not in writing)
        return others

    def delete_paper(self, paper_id: str) -> int:
        """Remove a paper from both indexes; returns the chunks removed (0 if unknown)."""
        units = [(paper_id, unit) for unit in UNITS]
        self.catalog.mark_pending(units)
        with self.catalog.transaction():
            removed = self.catalog.delete_paper(paper_id)
            self.names.replace_papers([paper_id])
        if self.lexical is not None:
            self.lexical.replace_units(units, [])
        self.store.delete(self.store.ids_of(paper_id))
        self.catalog.clear_pending(units)
        return removed
