"""The indexer of one job: its commits guarded by the job's lease, its units noted, and,
when the job runs again after a crash, only those units put right.

`Indexer.recover` puts right every pending unit at the start of a run, which is right for
one process and wrong for many: another worker's pending units are being written at that
moment. A job instead notes the units it is about to write (in `paperchat_job_units`, before
they are marked pending); a job run again first puts right those of its units still
pending: Chroma loses the chunks the catalog does not list for them, the chunks it keeps get
their metadata from the catalog again, and their pending marks are cleared.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import numpy as np

from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex, rebuild_units
from ingest.index.tables.chunks import Unit
from ingest.index.tables.database import CommitGuard
from ingest.index.vectors.store import ChunkStore
from ingest.index.writer import Indexer, UnitWork

_log = logging.getLogger(__name__)


class JobIndexer(Indexer):
    """An `Indexer` working for job `job_id`, every commit checked by `guard`."""

    def __init__(
        self,
        catalog: Catalog,
        store: ChunkStore,
        lexical: LexicalIndex | None,
        job_id: int,
        guard: CommitGuard,
    ) -> None:
        super().__init__(catalog, store, lexical)
        self.job_id = job_id
        self.guard = guard

    def write(
        self, works: Sequence[UnitWork], vectors: np.ndarray, guard: CommitGuard | None = None
    ) -> int:
        self._note(w.unit for w in works)
        try:
            return super().write(works, vectors, guard=guard or self.guard)
        except Exception as e:
            # Said here, by the thread that wrote: the job's task may have been ended
            # meanwhile (a worker that woke up past its lease), and its end logs no reason.
            first = _first_cause(e)
            _log.warning(
                "job %s: its write of %d units was not committed: %s",
                self.job_id,
                len(works),
                str(first).strip() or type(first).__name__,
            )
            raise

    def recover(self) -> int:
        """Put right this job's units that an earlier run of it left half written; returns
        the Chroma ids removed."""
        units = self.noted()
        removed = recover_units(self, units)
        if units:
            _log.info(
                "job %s run again: %d of its units checked, %d Chroma ids it left removed",
                self.job_id,
                len(units),
                removed,
            )
        return removed

    def noted(self) -> list[Unit]:
        rows = self.catalog.db.execute(
            "SELECT paper_id, kind FROM paperchat_job_units WHERE job_id = ?"
            " ORDER BY paper_id, kind",
            (self.job_id,),
        )
        return [(str(r[0]), str(r[1])) for r in rows]

    def forget(self) -> None:
        """The job is done: its units need no recovery."""
        self.catalog.db.execute("DELETE FROM paperchat_job_units WHERE job_id = ?", (self.job_id,))

    def _note(self, units: Iterable[Unit]) -> None:
        self.catalog.db.executemany(
            "INSERT INTO paperchat_job_units (job_id, paper_id, kind) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            [(self.job_id, paper_id, kind) for paper_id, kind in units],
        )


def recover_units(indexer: Indexer, units: Sequence[Unit]) -> int:
    """`Indexer.recover` for `units` alone: those still pending lose the Chroma chunks the
    catalog does not list; the pending units of the same papers' other kinds (whose metadata
    the write was refreshing) get their metadata again. Returns the Chroma ids removed."""
    catalog, store = indexer.catalog, indexer.store
    pending = set(catalog.pending_units())
    mine = [u for u in units if u in pending]
    papers = {paper_id for paper_id, _ in units}
    others = sorted(u for u in pending if u[0] in papers and u not in set(units))
    removed = 0
    for paper_id, kind in [*mine, *others]:
        known = set(catalog.chunk_ids(paper_id, kind))
        stored = store.ids_of(paper_id, kind)
        if (paper_id, kind) in mine:
            orphans = [i for i in stored if i not in known]
            store.delete(orphans)
            removed += len(orphans)
        kept = set(stored) & known
        store.refresh_metadata([c for c in catalog.unit_chunks(paper_id, kind) if c.id in kept])
    if indexer.lexical is not None:
        rebuild_units(indexer.lexical, catalog, [*mine, *others])
    catalog.clear_pending([*mine, *others])
    return removed


def _first_cause(error: BaseException) -> BaseException:
    """The error that began `error`'s chain: a refusal by the server ("terminating
    connection due to idle-in-transaction timeout") rather than the closed connection that
    cleaning up after it met."""
    while (earlier := error.__cause__ or error.__context__) is not None:
        error = earlier
    return error
