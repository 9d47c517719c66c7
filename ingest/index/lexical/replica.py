"""A node's lexical index as a replica of a shared catalog.

When the catalog is a database that several machines write (PostgreSQL), no
ingest writes a node's lexical index directly: each serving node keeps its own
and brings it up to date from the catalog's change log
(`ingest/index/tables/changes.py`). The replica remembers the last change it applied
in a file beside it (`lexical-replica.json` in the data dir); `catch_up`
rewrites from the catalog every unit changed since, then moves that mark. A
change applied twice leaves the same documents, so a node killed between the
two steps loses nothing.

The index holds one writer at a time (tantivy's lock): `catch_up` takes it for
the length of one batch, so `paperchat index rebuild-lexical` can run beside
a serving node, which then waits a turn.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex, rebuild_all, rebuild_units
from ingest.index.tables.changes import ARRIVAL
from ingest.index.tables.chunks import Unit

POSITION_FILE = "lexical-replica.json"
# Changes replayed per step: a batch of ingest is a few hundred units.
BATCH = 2000


@dataclass(frozen=True)
class ReplicaState:
    applied: int  # the last change this replica has applied
    latest: int  # the catalog's latest change

    @property
    def lag(self) -> int:
        return max(0, self.latest - self.applied)


class LexicalReplica:
    def __init__(self, catalog: Catalog, lexical: LexicalIndex, position: Path) -> None:
        """`position`: the file that keeps the last change applied."""
        self.catalog = catalog
        self.lexical = lexical
        self.position_path = position

    def applied(self) -> int | None:
        """The last change applied; None for a replica that never followed the log."""
        try:
            data = json.loads(self.position_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # unreadable: the replica is rebuilt
        seq = data.get("applied") if isinstance(data, dict) else None
        return seq if isinstance(seq, int) and seq >= 0 else None

    def state(self) -> ReplicaState:
        return ReplicaState(self.applied() or 0, self.catalog.last_change())

    def catch_up(self, limit: int = BATCH) -> int:
        """Apply at most `limit` changes; how many were applied. A replica with no mark, or
        an empty one of a catalog that has chunks, is rebuilt whole first (or adopted as it
        is when it already holds every chunk); so is one that had not read changes since
        pruned from the log."""
        applied = self.applied()
        if applied is not None and self.lexical.count() == 0 and self.catalog.chunk_count():
            applied = None  # the index's files were lost, its mark kept: built whole again
        # Changes it had not read were pruned from the log: what they changed is unknown.
        missed = applied is not None and applied < self.catalog.first_change() - 1
        if applied is None or missed:
            latest = self.catalog.last_change()
            if missed or self.lexical.count() != self.catalog.chunk_count():
                rebuild_all(self.lexical, self.catalog)
            self._save(latest)
            applied = latest
        found = self.catalog.changes_after(applied, limit)
        if not found:
            return 0
        units: list[Unit] = list(
            dict.fromkeys((c.paper_id, c.unit) for c in found if c.unit != ARRIVAL)
        )
        if units:
            rebuild_units(self.lexical, self.catalog, units)
        self._save(found[-1].seq)
        return len(found)

    def rebuild(self) -> int:
        """Rebuild the replica from the catalog; chunks written. Changes committed while it
        runs are applied again by the next `catch_up` (the mark is read first)."""
        latest = self.catalog.last_change()
        written = rebuild_all(self.lexical, self.catalog)
        self._save(latest)
        return written

    def _save(self, seq: int) -> None:
        directory = self.position_path.parent
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".replica-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"applied": seq}, out)
            Path(temporary).replace(self.position_path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
