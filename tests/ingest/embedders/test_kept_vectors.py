"""The index's own vector cache: a text the index embedded before with the same model is not
embedded again (a chunking change re-embeds only the texts it changed); another model's
vectors are never taken; a cache that is missing or cannot be read is made again from the
index's vectors, saying so, and nothing is embedded that was embedded before."""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import ingest.sources.units as units
from ingest import chunking
from ingest.embedders.base import Vectors
from ingest.embedders.cache import KEPT_FILE, KeptVectors, embed_keeping
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import Indexer
from ingest.pdf import PDF_STAGE_VERSION
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport
from tests.support.data import ABSTRACTS, PDFS

pytestmark = pytest.mark.timeout(300)

PAPERS = 60
PDF = PDFS / "2005.11401v4.pdf"
# Words in a chunk of a section at most once the chunking changes: long sections are cut
# otherwise, the short ones (and the captions, tables and abstract) as before.
SHORTER_CHUNKS = 120


class CountingEmbedder:
    """A vector made from each text's hash; keeps every text it is asked to embed."""

    dimension = 8
    max_tokens = 256

    def __init__(self, name: str = "counting") -> None:
        self.name = name
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded.extend(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), 8) + 1.0
        return np.asarray(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _words(text: str) -> int:
    return len(text.split())


def _abstracts(path: Path) -> Path:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        path.write_text("".join(itertools.islice(lines, PAPERS)), encoding="utf-8")
    return path


def _new_authors(source: Path) -> None:
    """Give every record of a metadata file other authors: its papers' texts stay the same."""
    lines = source.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) | {"authors": "A. Newcomer"} for line in lines]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _ingest(root: Path, source: Path, embedder: CountingEmbedder) -> list[str]:
    """Ingest `source` (a metadata file or a PDF) into the index in `root` as `paperchat
    ingest` does, the index's own cache consulted first; the texts the index holds after."""
    catalog = Catalog(root / "catalog.sqlite")
    store = ChunkStore(open_chroma(root / "chroma"), embedder.name)
    kept = KeptVectors.open(root / KEPT_FILE, embedder.name, embedder.dimension)
    if kept.fresh and store.count():
        kept.match_index(store)
    try:
        indexer = Indexer(catalog, store, LexicalIndex(root / "lexical"))
        pipeline = Pipeline(
            catalog, indexer, lambda texts: embed_keeping(embedder, kept, None, texts), NoProgress()
        )
        if source.suffix == ".pdf":
            items = units.pdf_items([source], catalog, _words, workers=1)
        else:
            items = units.metadata_items(source, _words)
        pipeline.run(items, IngestReport())
        if kept.outgrown(store.count()):
            kept.match_index(store)
        return [text for (text,) in catalog.db.execute("SELECT text FROM chunks")]
    finally:
        kept.close()
        catalog.close()


def _shorter_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunk full text shorter from now on, as a newer PDF stage, so that PDFs are read again."""
    monkeypatch.setattr(chunking, "FULLTEXT_CHUNK_TOKENS", SHORTER_CHUNKS)
    monkeypatch.setattr(units, "PDF_STAGE", f"{PDF_STAGE_VERSION}-shorter")


def test_reingest_after_a_chunk_size_change_embeds_only_the_new_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _ingest(tmp_path / "index", PDF, CountingEmbedder())
    _shorter_chunks(monkeypatch)
    embedder = CountingEmbedder()

    after = _ingest(tmp_path / "index", PDF, embedder)

    new = set(after) - set(before)
    assert 0 < len(new) < len(after)  # long sections are cut anew, the rest as before
    assert sorted(embedder.embedded) == sorted(new)


def test_a_paper_whose_record_changes_but_not_its_text_is_not_embedded_again(
    tmp_path: Path,
) -> None:
    source = _abstracts(tmp_path / "abstracts.jsonl")
    before = _ingest(tmp_path / "index", source, CountingEmbedder())
    _new_authors(source)
    embedder = CountingEmbedder()

    after = _ingest(tmp_path / "index", source, embedder)

    assert sorted(after) == sorted(before)
    assert embedder.embedded == []


def test_vectors_taken_from_the_cache_are_the_ones_the_model_made(tmp_path: Path) -> None:
    kept = KeptVectors.open(tmp_path / KEPT_FILE, "counting", CountingEmbedder.dimension)
    first = CountingEmbedder()
    made = embed_keeping(first, kept, None, ["alpha", "beta"])
    again = CountingEmbedder()

    vectors = embed_keeping(again, kept, None, ["beta", "gamma", "alpha"])

    assert again.embedded == ["gamma"]
    assert vectors.tolist() == [
        made[1].tolist(),
        first.embed(["gamma"])[0].tolist(),
        made[0].tolist(),
    ]
    assert (kept.hits, kept.misses) == (2, 3)  # over both calls


def test_a_model_change_does_not_take_the_vectors_of_the_other_model(tmp_path: Path) -> None:
    path = tmp_path / KEPT_FILE
    old = KeptVectors.open(path, "old-model", CountingEmbedder.dimension)
    embed_keeping(CountingEmbedder("old-model"), old, None, ["alpha", "beta"])
    old.close()
    new_model = CountingEmbedder("new-model")
    kept = KeptVectors.open(path, "new-model", CountingEmbedder.dimension)

    embed_keeping(new_model, kept, None, ["alpha", "beta"])

    assert new_model.embedded == ["alpha", "beta"]
    assert kept.hits == 0


def test_a_cache_that_cannot_be_read_is_made_again_from_the_index_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source = _abstracts(tmp_path / "abstracts.jsonl")
    before = _ingest(tmp_path / "index", source, CountingEmbedder())
    cache = tmp_path / "index" / KEPT_FILE
    cache.write_bytes(b"not a database" * 100)
    _new_authors(source)
    embedder = CountingEmbedder()

    with caplog.at_level(logging.WARNING, logger="ingest.embedders.cache"):
        after = _ingest(tmp_path / "index", source, embedder)

    assert f"the vector cache {str(cache)!r} cannot be read" in caplog.text
    assert "it is made again from the index" in caplog.text
    assert sorted(after) == sorted(before)
    assert embedder.embedded == []


def test_a_missing_cache_is_made_again_from_the_index(tmp_path: Path) -> None:
    source = _abstracts(tmp_path / "abstracts.jsonl")
    before = _ingest(tmp_path / "index", source, CountingEmbedder())
    (tmp_path / "index" / KEPT_FILE).unlink()
    _new_authors(source)
    embedder = CountingEmbedder()

    after = _ingest(tmp_path / "index", source, embedder)

    assert sorted(after) == sorted(before)
    assert embedder.embedded == []


def test_the_cache_keeps_only_the_texts_and_model_the_index_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "index"
    source = _abstracts(tmp_path / "abstracts.jsonl")
    _ingest(root, source, CountingEmbedder())
    monkeypatch.setattr(chunking, "MAX_CHUNK_TOKENS", SHORTER_CHUNKS)  # long abstracts cut
    after = _ingest(root, source, CountingEmbedder())
    for model in ("counting", "other-model"):
        extra = KeptVectors.open(root / KEPT_FILE, model, CountingEmbedder.dimension)
        extra.add(["a text the index does not hold"], np.ones((1, 8), dtype=np.float32))
        extra.close()
    kept = KeptVectors.open(root / KEPT_FILE, "counting", CountingEmbedder.dimension)

    added, dropped = kept.match_index(ChunkStore(open_chroma(root / "chroma"), "counting"))

    assert added == 0
    assert dropped > 2  # the texts the new chunking no longer makes, and the two added here
    assert len(kept) == len(set(after))
    found, _ = kept.find(sorted(set(after)))
    assert len(found) == len(set(after))
    kept.close()


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_ingest_reads_a_cache_it_cannot_read_again_from_the_index_and_embeds_nothing_twice(
    tmp_path: Path, models_cache: Path
) -> None:
    from tests.support.running.cli import environment, run

    data = tmp_path / "data"
    env = environment(data, models_cache)
    source = _abstracts(tmp_path / "abstracts.jsonl")
    first = run(env, "ingest", "abstracts", str(source), "--limit", "20")
    (data / KEPT_FILE).write_bytes(b"not a database" * 100)
    _new_authors(source)

    done = run(env, "ingest", "abstracts", str(source), "--limit", "20", "--json")

    assert first.code == 0, first.stderr
    assert done.code == 0, done.stderr
    assert f"the vector cache {str(data / KEPT_FILE)!r} cannot be read" in done.stderr
    assert "vectors taken from the index's cache, 0 not found there" in done.stderr
    assert json.loads(done.stdout)["updated_papers"] == 20
