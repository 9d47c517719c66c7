"""Unit vectors for tests of the vector store, where the values do not matter."""

from __future__ import annotations

import numpy as np

from ingest.embedders.base import Vectors, normalise


def unit_vectors(n: int, seed: int = 7, dimension: int = 384) -> Vectors:
    return normalise(np.random.default_rng(seed).normal(size=(n, dimension)))
