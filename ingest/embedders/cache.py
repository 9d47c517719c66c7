"""Vectors made before, found by the text they embed: an `.npz` of `keys` (the first 16
bytes of the SHA-256 of each text, UTF-8, sorted), `vectors` (one row a key) and `meta`
(JSON naming the embedder). A text the file holds is not embedded again; any other is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ingest.embedders.base import Embedder, EmbedderError, Vectors

KEY_BYTES = 16


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
