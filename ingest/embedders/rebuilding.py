"""A new vector store from the catalog's chunks (`paperchat index rebuild-vectors`).

The catalog keeps every chunk's text and paper, so the vectors can always be made again:
from a vector cache where it holds the text, by the embedder otherwise. An embedded store
is moved aside first (to `chroma.damaged-<time>`, never deleted: it is the user's to
remove) and a new one is written in its place; a Chroma server's collection is dropped
and written again. A run that stops part way leaves `<dir>.rebuilding` beside the store,
and the next run goes on from the chunks already written instead of starting again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.embedders.cache import VectorCache, embed_with_cache
from ingest.index.vectors.store import COLLECTION, ChunkStore

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

    from ingest.embedders.base import Embedder
    from ingest.index.catalog import Catalog
    from ingest.index.records import Chunk

BATCH = 512
Progress = Callable[[int, int], None]  # (chunks written, chunks in all)


@dataclass
class Rebuilt:
    chunks: int = 0  # written by this run
    kept: int = 0  # written by an interrupted run this one went on from
    from_cache: int = 0
    embedded: int = 0
    seconds: float = 0.0
    moved_to: Path | None = None  # where the old embedded store went


def rebuilding_marker(path: Path) -> Path:
    return path.with_name(f"{path.name}.rebuilding")


def move_aside(path: Path) -> Path | None:
    """Move the embedded store in `path` out of the way, unless an interrupted rebuild
    left it there (then it is the one to finish). Where it went, or None."""
    marker = rebuilding_marker(path)
    if marker.exists() or not path.exists():
        marker.touch()
        return None
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    path.rename(target)
    marker.touch()
    return target


def drop_collection(client: ClientAPI) -> None:
    """A Chroma server's collection of chunks, dropped so that it is written anew."""
    if COLLECTION in {c.name for c in client.list_collections()}:
        client.delete_collection(COLLECTION)


def _chunks(catalog: Catalog) -> Iterator[list[Chunk]]:
    batch: list[Chunk] = []
    for paper_id, unit in catalog.all_units():
        batch.extend(catalog.unit_chunks(paper_id, unit))
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def rebuild(
    client: ClientAPI,
    catalog: Catalog,
    embedder: Embedder,
    cache: VectorCache | None = None,
    progress: Progress | None = None,
) -> Rebuilt:
    """Write a vector for every chunk of `catalog` into the (new or half-written)
    collection of `client`."""
    started = time.perf_counter()
    store = ChunkStore(client, embedder.name)
    result = Rebuilt()
    total = catalog.chunk_count()
    done = 0
    for batch in _chunks(catalog):
        present = set(store.collection.get(ids=[c.id for c in batch], include=[])["ids"])
        todo = [c for c in batch if c.id not in present]
        result.kept += len(batch) - len(todo)
        if todo:
            store.upsert(todo, embed_with_cache(embedder, cache, [c.text for c in todo]))
            result.chunks += len(todo)
        done += len(batch)
        if progress is not None:
            progress(done, total)
    result.from_cache = cache.hits if cache else 0  # the cache is this run's own
    result.embedded = result.chunks - result.from_cache
    result.seconds = time.perf_counter() - started
    return result


def finish(path: Path) -> None:
    """The rebuild of the embedded store in `path` is complete."""
    rebuilding_marker(path).unlink(missing_ok=True)
