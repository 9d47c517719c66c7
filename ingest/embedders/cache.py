"""Vectors made before, found by the text they embed, so that a text is not embedded twice.

Two kinds, one key (the first 16 bytes of the SHA-256 of the text, UTF-8): a `VectorCache`
is an `.npz` someone made (`keys` sorted, `vectors` one row a key, `meta` JSON naming the
embedder), read only; `KeptVectors` is the index's own, an SQLite file in its data dir
(`KEPT_FILE`) that ingest reads first and adds every vector it writes to.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ingest.embedders.base import Embedder, EmbedderError, Vectors

if TYPE_CHECKING:
    from ingest.index.vectors.store import ChunkStore

KEY_BYTES = 16
# The index's own cache, in its data dir.
KEPT_FILE = "vector-cache.sqlite"
_KEYS_PER_QUERY = 500
_PAGE = 1000  # chunks read from the vector store at a time
# Entries beyond the index's chunks (and a quarter) left before they are dropped.
_SLACK = 1000
_log = logging.getLogger(__name__)


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:KEY_BYTES]


class VectorCache:
    """The vectors of one `.npz` file, for one embedder."""

    def __init__(self, keys: np.ndarray, vectors: np.ndarray, embedder: str) -> None:
        self._keys = np.ascontiguousarray(keys).view(f"S{KEY_BYTES}").ravel()
        self._vectors = vectors
        self.embedder = embedder
        self.hits = 0
        self.misses = 0

    @classmethod
    def load(cls, path: Path) -> VectorCache:
        try:
            with np.load(path) as data:
                meta = json.loads(str(data["meta"]))
                keys, vectors = data["keys"], data["vectors"]
        except (OSError, ValueError, KeyError) as e:
            raise EmbedderError(f"cannot read the vector cache {str(path)!r}: {e}") from e
        if keys.ndim != 2 or keys.shape[1] != KEY_BYTES or len(keys) != len(vectors):
            raise EmbedderError(f"the vector cache {str(path)!r} is not keyed as expected")
        return cls(keys, vectors, str(meta.get("embedder", "")))

    def __len__(self) -> int:
        return len(self._keys)

    def find(self, texts: Sequence[str]) -> tuple[list[int], np.ndarray]:
        """The positions among `texts` the cache holds, and their vectors (float32)."""
        wanted = np.array([text_key(t) for t in texts], dtype=f"S{KEY_BYTES}")
        at = np.searchsorted(self._keys, wanted)
        at = np.minimum(at, len(self._keys) - 1) if len(self._keys) else at
        hit = (self._keys[at] == wanted) if len(self._keys) else np.zeros(len(texts), bool)
        positions = [int(i) for i in np.flatnonzero(hit)]
        return positions, self._vectors[at[hit]].astype(np.float32)


def embed_with_cache(
    embedder: Embedder, cache: VectorCache | None, texts: Sequence[str]
) -> Vectors:
    """`embedder.embed(texts)`, taking what `cache` holds from it."""
    if cache is None:
        return embedder.embed(texts)
    if cache.embedder != embedder.name:
        raise EmbedderError(
            f"the vector cache was made by {cache.embedder!r}, not {embedder.name!r}"
        )
    found, cached = cache.find(texts)
    vectors = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    if found:
        vectors[found] = cached
    rest = sorted(set(range(len(texts))) - set(found))
    if rest:
        vectors[rest] = embedder.embed([texts[i] for i in rest])
    cache.hits += len(found)
    cache.misses += len(rest)
    return vectors


class KeptVectors:
    """The vectors an index made, kept in an SQLite file of its data dir by the model that
    made them and the key of the text they embed, so that a text embedded before (a chunk a
    new chunking cut the same, a paper ingested again) is not embedded again.

    It holds the vectors of the chunks the index holds: `match_index` drops the entries of
    texts or models the index no longer has and reads back from the index the vectors it
    lacks, when the file is new or its stale entries outgrow a quarter of the index.
    """

    def __init__(self, db: sqlite3.Connection, model: str, dimension: int, fresh: bool) -> None:
        self._db = db
        self.model = model
        self.dimension = dimension
        self.fresh = fresh  # made this run: the index's vectors are yet to be read into it
        self.hits = 0
        self.misses = 0

    @classmethod
    def open(cls, path: Path, model: str, dimension: int) -> KeptVectors:
        """The cache in `path` for `model`; one that is missing or cannot be read is made
        anew (and says so when it could not be read)."""
        fresh = not path.exists()
        try:
            db = _connect(path)
        except sqlite3.DatabaseError as e:
            _log.warning(
                "the vector cache %r cannot be read (%s): it is made again from the index",
                str(path),
                e,
            )
            for stale in (path, path.with_name(f"{path.name}-journal")):
                stale.unlink(missing_ok=True)
            db, fresh = _connect(path), True
        return cls(db, model, dimension, fresh)

    def close(self) -> None:
        self._db.close()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def find(self, texts: Sequence[str]) -> tuple[list[int], np.ndarray]:
        """The positions among `texts` the cache holds for its model, and their vectors."""
        keys = [text_key(t) for t in texts]
        held: dict[bytes, bytes] = {}
        for start in range(0, len(keys), _KEYS_PER_QUERY):
            part = keys[start : start + _KEYS_PER_QUERY]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})",
                (self.model, *part),
            )
            held.update((bytes(k), bytes(v)) for k, v in rows)
        size = self.dimension * 4
        positions = [i for i, k in enumerate(keys) if len(held.get(k, b"")) == size]
        vectors = np.frombuffer(b"".join(held[keys[i]] for i in positions), dtype=np.float32)
        return positions, vectors.reshape(len(positions), self.dimension)

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Keep the vectors of `texts` (one row each, as the model made them)."""
        self._insert(zip([text_key(t) for t in texts], vectors, strict=True))

    def _insert(self, pairs: Iterable[tuple[bytes, np.ndarray]]) -> None:
        rows = [(self.model, k, np.asarray(v, np.float32).tobytes()) for k, v in pairs]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def outgrown(self, chunks: int) -> bool:
        """Whether entries for texts the index lacks may be many: it holds over a quarter more
        than the index holds `chunks`."""
        return len(self) > chunks + chunks // 4 + _SLACK

    def match_index(self, store: ChunkStore) -> tuple[int, int]:
        """Hold the vectors of the chunks `store` holds and no others: those it lacks are read
        from `store`, entries of other texts or other models dropped. (added, dropped)"""
        held = {bytes(k) for (k,) in self._db.execute(
            "SELECT key FROM vectors WHERE model = ?", (self.model,))}  # fmt: skip
        current: set[bytes] = set()
        added = 0
        for offset in range(0, store.count(), _PAGE):
            page = store.collection.get(include=["documents"], limit=_PAGE, offset=offset)
            keys = {cid: text_key(text or "") for cid, text in
                    zip(page["ids"], page["documents"] or [], strict=True)}  # fmt: skip
            current.update(keys.values())
            lacking = [cid for cid, key in keys.items() if key not in held]
            found = store.vectors(lacking) if lacking else {}
            self._insert((keys[cid], v) for cid, v in found.items() if len(v) == self.dimension)
            held.update(keys[cid] for cid in found)
            added += len(found)
        stale = [(self.model, k) for k in held - current]
        with self._db:
            others = self._db.execute("DELETE FROM vectors WHERE model != ?", (self.model,))
            self._db.executemany("DELETE FROM vectors WHERE model = ? AND key = ?", stale)
        self.fresh = False
        return added, others.rowcount + len(stale)


def _connect(path: Path) -> sqlite3.Connection:
    """The cache's database, made if new, checked to be one (`sqlite3.DatabaseError`)."""
    db = sqlite3.connect(path, timeout=30)
    try:
        db.execute("PRAGMA page_size = 16384")  # a new file's: ten vectors a page, not two
        db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key BLOB NOT NULL, "
            "vector BLOB NOT NULL, UNIQUE (model, key))"
        )
        db.execute("SELECT model, key, vector FROM vectors LIMIT 1").fetchall()
        (check,) = db.execute("PRAGMA quick_check").fetchone()
        if check != "ok":
            raise sqlite3.DatabaseError(check)
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def embed_keeping(
    embedder: Embedder, kept: KeptVectors, cache: VectorCache | None, texts: Sequence[str]
) -> Vectors:
    """`embedder.embed(texts)`, taking what the index's own cache `kept` holds from it, then
    what `cache` holds; every vector not kept before is kept."""
    found, held = kept.find(texts)
    vectors = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    if found:
        vectors[found] = held
    rest = sorted(set(range(len(texts))) - set(found))
    if rest:
        made = embed_with_cache(embedder, cache, [texts[i] for i in rest])
        vectors[rest] = made
        kept.add([texts[i] for i in rest], made)
    kept.hits += len(found)
    kept.misses += len(rest)
    return vectors
