"""A small index's vectors in one file of its own, searched exactly: the private index of a
user's uploaded PDF (a few hundred chunks), which lives in a folder of its own so that
deleting the folder deletes the index, and which any node that reads the folder can open.

It answers the writer (`ingest.index.writer.Indexer`) and the retriever as the Chroma
collection does (`ChunkStore`), with the same ids, paper filter and cosine scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ingest.index.filters import Filters
from ingest.index.records import Chunk
from ingest.index.tables.chunks import UNIT_KINDS
from ingest.index.vectors.store import ChunkStore
from ingest.private import private_file

VECTORS_FILE = "vectors.npz"


class VectorFile(ChunkStore):
    """The chunks' vectors, their paper and kind in `folder/vectors.npz`, read whole."""

    def __init__(self, folder: Path, embedder_name: str | None) -> None:  # no Chroma client
        self.path = folder / VECTORS_FILE
        self.embedder_name = embedder_name
        self._ids: list[str] = []
        self._papers: list[str] = []
        self._kinds: list[str] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        if self.path.exists():
            with np.load(self.path, allow_pickle=False) as stored:
                self._ids = [str(i) for i in stored["ids"]]
                self._papers = [str(p) for p in stored["papers"]]
                self._kinds = [str(k) for k in stored["kinds"]]
                self._vectors = np.asarray(stored["vectors"], dtype=np.float32)

    def _save(self) -> None:
        partial = self.path.with_name(self.path.name + ".partial.npz")
        private_file(partial)
        with partial.open("wb") as out:
            np.savez(
                out,
                ids=np.asarray(self._ids, dtype=str),
                papers=np.asarray(self._papers, dtype=str),
                kinds=np.asarray(self._kinds, dtype=str),
                vectors=self._vectors,
            )
        partial.replace(self.path)

    def write_batch(self) -> int:
        return max(1, len(self._ids) or 1)

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        if not chunks:
            return
        self.delete([c.id for c in chunks])
        rows = np.asarray(vectors, dtype=np.float32)[: len(chunks)]
        self._vectors = rows if not self._ids else np.vstack([self._vectors, rows])
        self._ids.extend(c.id for c in chunks)
        self._papers.extend(c.paper_id for c in chunks)
        self._kinds.extend(c.kind for c in chunks)
        self._save()

    def refresh_metadata(self, chunks: Sequence[Chunk]) -> None:
        """Nothing to do: the chunks' fields are read from the index's catalog."""

    def delete(self, ids: Sequence[str]) -> None:
        gone = set(ids)
        keep = [n for n, chunk_id in enumerate(self._ids) if chunk_id not in gone]
        if len(keep) == len(self._ids):
            return
        self._ids = [self._ids[n] for n in keep]
        self._papers = [self._papers[n] for n in keep]
        self._kinds = [self._kinds[n] for n in keep]
        self._vectors = self._vectors[keep] if keep else np.zeros((0, 0), dtype=np.float32)
        self._save()

    def ids_of(self, paper_id: str, unit: str | None = None) -> list[str]:
        kinds = set(UNIT_KINDS.get(unit, (unit,))) if unit is not None else None
        return [
            chunk_id
            for chunk_id, paper, kind in zip(self._ids, self._papers, self._kinds, strict=True)
            if paper == paper_id and (kinds is None or kind in kinds)
        ]

    def count(self) -> int:
        return len(self._ids)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = set(ids)
        return {i: self._vectors[n] for n, i in enumerate(self._ids) if i in wanted}

    def search(self, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """The `k` chunks nearest to `vector` by cosine, best first, of the papers
        `filters` searches (all when it names none)."""
        filters.check_resolved()
        if not self._ids:
            return []
        papers = set(filters.searched_papers)
        rows = [n for n, p in enumerate(self._papers) if not papers or p in papers]
        if not rows:
            return []
        matrix = self._vectors[rows]
        query = np.asarray(vector, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        scores = matrix @ query / np.where(norms == 0, 1.0, norms)
        best = np.argsort(-scores)[:k]
        return [(self._ids[rows[n]], float(scores[n])) for n in best]
