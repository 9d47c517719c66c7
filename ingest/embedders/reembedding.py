"""Embed an index's chunks again with another embedder (`paperchat index reembed`).

The chunks' new vectors go into a collection of their own beside the one in
use, which keeps answering searches with the old embedder until the end:
then the old collection is dropped and the new one takes its name, with the
new embedder's name in its metadata (`ingest.index.vectors.store.EmbedderMismatch`
guards every later use). A run that stops part way (interrupted, killed)
resumes where it stopped: chunks the new collection holds already are not
embedded again. A new collection left by a run for another embedder is
started afresh.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ingest.embedders.base import Embedder, EmbedderError
from ingest.index.vectors.store import COLLECTION, SEARCH_EF

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

NEXT = f"{COLLECTION}_next"
PAGE = 256
Progress = Callable[[int, int], None]  # (chunks done, chunks in all)


@dataclass
class Reembedded:
    embedder: str
    chunks: int = 0  # in the collection at the end
    embedded: int = 0  # by this run (the rest by a run it resumed)
    seconds: float = 0.0
    unchanged: bool = False  # the index was embedded by this embedder already


def recorded_embedder(collection: Collection) -> str | None:
    value = (collection.metadata or {}).get("embedder")
    return str(value) if value else None


def _next_collection(client: ClientAPI, name: str) -> Collection:
    existing = {c.name if hasattr(c, "name") else str(c) for c in client.list_collections()}
    if NEXT in existing:
        found = client.get_collection(NEXT, embedding_function=None)
        if recorded_embedder(found) == name:
            return found
        client.delete_collection(NEXT)  # left by a run for another embedder
    return client.create_collection(
        NEXT,
        configuration={"hnsw": {"space": "cosine", "ef_search": SEARCH_EF}},
        metadata={"embedder": name},
        embedding_function=None,
    )


def reembed(client: ClientAPI, embedder: Embedder, progress: Progress | None = None) -> Reembedded:
    """Every chunk of the index's collection embedded by `embedder` (see the module)."""
    started = time.perf_counter()
    try:
        current = client.get_collection(COLLECTION, embedding_function=None)
    except Exception as e:  # chromadb raises its own NotFoundError or a ValueError
        raise EmbedderError(f"the index has no collection {COLLECTION!r} to embed again") from e
    done = Reembedded(embedder.name)
    total = current.count()
    if recorded_embedder(current) == embedder.name:
        done.chunks, done.unchanged = total, True
        return done
    target = _next_collection(client, embedder.name)
    offset = 0
    while offset < total:
        page = current.get(limit=PAGE, offset=offset, include=["documents", "metadatas"])
        ids = list(page["ids"])
        if not ids:
            break
        present = set(target.get(ids=ids, include=[])["ids"])
        missing = [i for i, chunk_id in enumerate(ids) if chunk_id not in present]
        if missing:
            documents = page["documents"] or []
            metadatas = page["metadatas"] or []
            texts = [documents[i] or "" for i in missing]
            vectors = embedder.embed(texts)
            chosen: list[Any] = [metadatas[i] for i in missing]
            target.upsert(
                ids=[ids[i] for i in missing],
                embeddings=vectors,
                documents=texts,
                metadatas=chosen,
            )
            done.embedded += len(missing)
        offset += len(ids)
        if progress is not None:
            progress(min(offset, total), total)
    if target.count() != current.count():
        raise EmbedderError(
            f"the new collection holds {target.count()} chunks, the index {current.count()}: "
            "the index changed while it was embedded again; run this again"
        )
    client.delete_collection(COLLECTION)
    target.modify(name=COLLECTION)
    done.chunks = target.count()
    done.seconds = time.perf_counter() - started
    return done
