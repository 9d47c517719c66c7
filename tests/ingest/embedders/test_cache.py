"""A vector cache: texts it holds take its vectors, the rest are embedded, in input order;
a cache made by another embedder, or not keyed as one, is refused."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ingest.embedders.base import EmbedderError, Vectors
from ingest.embedders.cache import VectorCache, embed_with_cache, text_key
from tests.support.data import SHARED

SHARED_CACHE = SHARED / "embeddings" / "minilm-l6-v2-chunks.npz"


class CountingEmbedder:
    """Embeds a text as its length in every dimension (normalised); counts what it embeds."""

    name = "counting"
    dimension = 4
    max_tokens = 256

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded.extend(texts)
        return np.full((len(texts), 4), 0.5, dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _cache_file(path: Path, vectors: dict[str, list[float]], embedder: str) -> Path:
    keys = sorted((text_key(t), v) for t, v in vectors.items())
    np.savez(
        path,
        keys=np.frombuffer(b"".join(k for k, _ in keys), dtype=np.uint8).reshape(-1, 16),
        vectors=np.array([v for _, v in keys], dtype=np.float16),
        meta=json.dumps({"embedder": embedder}),
    )
    return path


def test_cached_texts_take_the_caches_vectors_and_only_the_rest_are_embedded(
    tmp_path: Path,
) -> None:
    held = {"alpha": [1.0, 0.0, 0.0, 0.0], "gamma": [0.0, 0.0, 1.0, 0.0]}
    cache = VectorCache.load(_cache_file(tmp_path / "c.npz", held, "counting"))
    embedder = CountingEmbedder()

    vectors = embed_with_cache(embedder, cache, ["gamma", "beta", "alpha", "delta"])

    assert embedder.embedded == ["beta", "delta"]
    assert vectors.tolist() == [held["gamma"], [0.5] * 4, held["alpha"], [0.5] * 4]
    assert (cache.hits, cache.misses) == (2, 2)


def test_a_cache_made_by_another_embedder_is_refused(tmp_path: Path) -> None:
    cache = VectorCache.load(_cache_file(tmp_path / "c.npz", {"a": [1, 0, 0, 0]}, "other"))

    with pytest.raises(EmbedderError, match="made by 'other', not 'counting'"):
        embed_with_cache(CountingEmbedder(), cache, ["a"])


def test_a_file_that_is_not_a_cache_is_refused_with_its_name(tmp_path: Path) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")

    with pytest.raises(EmbedderError, match=r"cannot read the vector cache .*broken\.npz"):
        VectorCache.load(broken)


@pytest.mark.integration
@pytest.mark.slow
def test_ingest_takes_the_vectors_of_the_texts_the_setting_names_a_cache_for(
    tmp_path: Path, models_cache: Path
) -> None:
    from ingest.index.catalog import Catalog
    from ingest.index.vectors.store import ChunkStore, open_chroma
    from tests.support.data import ABSTRACTS
    from tests.support.running.cli import environment, run

    data = tmp_path / "data"
    env = environment(data, models_cache, PAPERCHAT_EMBEDDINGS_CACHE=str(SHARED_CACHE))

    done = run(env, "ingest", "abstracts", str(ABSTRACTS), "--limit", "40")

    assert done.code == 0, done.stderr
    catalog = Catalog(data / "catalog.sqlite")
    rows = catalog.db.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    catalog.close()
    stored = ChunkStore(open_chroma(data / "chroma"), None).vectors([r[0] for r in rows])
    found, cached = VectorCache.load(SHARED_CACHE).find([r[1] for r in rows])
    assert len(rows) >= 40
    assert found == list(range(len(rows)))  # every chunk of the library is in the cache
    # The cache's values to float32 rounding: embedded afresh they differ in the 3rd digit.
    differences = [np.abs(stored[rows[i][0]] - cached[n]).max() for n, i in enumerate(found)]
    assert max(differences) < 1e-6


@pytest.mark.integration
@pytest.mark.slow
def test_ingest_pdfs_takes_the_vectors_of_the_cache_its_option_names(
    tmp_path: Path, models_cache: Path
) -> None:
    from ingest.index.catalog import Catalog
    from ingest.index.vectors.store import ChunkStore, open_chroma
    from tests.support.running.cli import environment, run

    data = tmp_path / "data"
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    (pdfs / "2005.11401v4.pdf").write_bytes((SHARED / "pdfs" / "2005.11401v4.pdf").read_bytes())
    env = environment(data, models_cache)

    done = run(env, "ingest", "pdfs", str(pdfs), "--embeddings", str(SHARED_CACHE), "--json")

    assert done.code == 0, done.stderr
    catalog = Catalog(data / "catalog.sqlite")
    rows = catalog.db.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    catalog.close()
    stored = ChunkStore(open_chroma(data / "chroma"), None).vectors([r[0] for r in rows])
    found, cached = VectorCache.load(SHARED_CACHE).find([r[1] for r in rows])
    assert len(rows) > 20
    # The shared vectors were made from an earlier chunking: a chunk the chunker now cuts
    # elsewhere (after "et al." no more) is embedded anew, every other one comes from them.
    assert len(found) >= 0.9 * len(rows)
    assert set(stored) == {r[0] for r in rows}
    differences = [np.abs(stored[rows[i][0]] - cached[n]).max() for n, i in enumerate(found)]
    assert max(differences) < 1e-6


@pytest.mark.integration
def test_a_missing_cache_named_on_the_command_line_stops_ingest_before_any_work(
    tmp_path: Path,
) -> None:
    from tests.support.data import ABSTRACTS
    from tests.support.running.cli import environment, run

    data = tmp_path / "data"
    missing = tmp_path / "no-such-cache.npz"

    done = run(environment(data, tmp_path / "models"), "ingest", "abstracts", str(ABSTRACTS),
               "--limit", "5", "--embeddings", str(missing))  # fmt: skip

    assert done.code == 2
    assert f"no such vector cache: {str(missing)!r}" in done.stderr
    assert not (data / "catalog.sqlite").exists()
