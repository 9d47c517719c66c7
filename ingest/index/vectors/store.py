"""The vector side of the index: one Chroma collection holding every chunk.

This module defines the collection's schema (name, distance, metadata
fields, the embedder recorded with it); chat reads the index through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
import numpy as np
from chromadb.api import ClientAPI
from chromadb.config import Settings as ChromaSettings

from ingest.errors import PaperchatError
from ingest.index.filters import Filters, date_number
from ingest.index.records import Chunk
from ingest.index.tables.chunks import UNIT_KINDS
from ingest.index.vectors.owner import VectorStoreBusy, claim, held, published_url
from ingest.private import private_dir

COLLECTION = "paperchat_chunks"
# Records a write (upsert, update, delete) sends at most: Chroma Cloud refuses more than
# 300, a local or `chroma run` Chroma more than its `get_max_batch_size()`.
WRITE_BATCH = 300
# Fields indexes built before kept on every chunk, now read from the catalog: a chunk's
# metadata refresh removes them (Chroma deletes a key updated to None).
DROPPED_FIELDS = ("title", "authors")
# Candidates the HNSW graph search keeps while it walks. With Chroma's default (100, as
# many as retrieval asks for) the search returned 0.82 of the exact 100 nearest chunks
# of the full index; with 400 it returns 0.95, for a few milliseconds more a query
# (docs/design.md). It can change on an existing index.
SEARCH_EF = 400


class IndexUnavailable(PaperchatError):
    """Chroma cannot be reached or opened."""


class EmbedderMismatch(PaperchatError):
    """The index was built with another embedding model than the one configured."""


def open_chroma(path: Path, url: str = "") -> ClientAPI:
    """An HTTP client when `url` is set; else the embedded Chroma in `path`: opened here
    when this process holds the directory or can claim it, reached through the server of
    the `paperchat serve` that holds it otherwise (`ingest.index.vectors.owner`). Raises
    `VectorStoreBusy` when another command holds it."""
    settings = ChromaSettings(anonymized_telemetry=False)
    try:
        if url:
            return _http_client(url, settings)
        mine = held(path)
        if mine is None:
            try:
                mine = claim(path)
            except VectorStoreBusy:
                return _http_client(published_url(path), settings)
        if mine.url:
            return _http_client(mine.url, settings)
        private_dir(path)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except (IndexUnavailable, VectorStoreBusy):
        raise
    except Exception as e:
        raise IndexUnavailable(f"cannot open Chroma at {url or str(path)!r}: {e}") from e


def _http_client(url: str, settings: ChromaSettings) -> ClientAPI:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise IndexUnavailable(f"PAPERCHAT_CHROMA_URL {url!r} is not an http(s) URL")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return chromadb.HttpClient(
        host=parsed.hostname, port=port, ssl=parsed.scheme == "https", settings=settings
    )


def chunk_metadata(chunk: Chunk) -> dict[str, Any]:
    """The metadata stored with every chunk: what Chroma filters on (paper, categories,
    date, kind) and where the chunk sits. Titles and authors, the bulk of a paper's record,
    are read from the catalog: repeated on each chunk they were most of its bytes."""
    paper = chunk.paper
    return {
        "paper_id": chunk.paper_id,
        "is_arxiv": paper.is_arxiv,
        "version": paper.version,
        "primary_category": paper.primary_category,
        "categories": " ".join(paper.categories),
        "published": paper.published,
        # Integer form of the date (20220328) so Chroma can filter ranges.
        "published_int": date_number(paper.published),
        "kind": chunk.kind,
        "section": chunk.section,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "chunk_number": chunk.number,
    }


class ChunkStore:
    """Chroma collection of chunks, with the embedder's identity in its metadata."""

    def __init__(self, client: ClientAPI, embedder_name: str | None) -> None:
        """Open or create the collection; `embedder_name` None skips the model check."""
        self._client = client
        try:
            self.collection = client.get_or_create_collection(
                COLLECTION,
                configuration={"hnsw": {"space": "cosine", "ef_search": SEARCH_EF}},
                metadata={"embedder": embedder_name} if embedder_name else None,
                embedding_function=None,
            )
            self._search_wide_enough()
        except Exception as e:
            raise IndexUnavailable(f"cannot open the Chroma collection {COLLECTION!r}: {e}") from e
        recorded = (self.collection.metadata or {}).get("embedder")
        if embedder_name and recorded and recorded != embedder_name:
            raise EmbedderMismatch(
                f"the index was built with {recorded!r}, not {embedder_name!r}: "
                "use the same embedder or a new data dir"
            )

    def _search_wide_enough(self) -> None:
        """An index made with another `ef_search` gets `SEARCH_EF`. Chroma reads the setting
        when a process first searches the collection, so this comes before any search."""
        if self.search_ef() != SEARCH_EF:
            self.collection.modify(configuration={"hnsw": {"ef_search": SEARCH_EF}})

    def search_ef(self) -> int | None:
        """The collection's configured `ef_search`."""
        hnsw = (self.collection.configuration or {}).get("hnsw") or {}
        value = hnsw.get("ef_search")
        return int(value) if value is not None else None

    def write_batch(self) -> int:
        """Records one write sends: `WRITE_BATCH`, or fewer if this Chroma takes fewer."""
        return min(WRITE_BATCH, self._client.get_max_batch_size())

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        batch = self.write_batch()
        for start in range(0, len(chunks), batch):
            part = chunks[start : start + batch]
            self.collection.upsert(
                ids=[c.id for c in part],
                embeddings=vectors[start : start + len(part)],
                documents=[c.text for c in part],
                metadatas=[chunk_metadata(c) for c in part],
            )

    def refresh_metadata(self, chunks: Sequence[Chunk]) -> None:
        """Store the current metadata of chunks already in the collection (their paper's
        record changed); their vectors and text stay, and `DROPPED_FIELDS` go."""
        dropped = dict.fromkeys(DROPPED_FIELDS)
        batch = self.write_batch()
        for start in range(0, len(chunks), batch):
            part = chunks[start : start + batch]
            self.collection.update(
                ids=[c.id for c in part], metadatas=[dropped | chunk_metadata(c) for c in part]
            )

    def delete(self, ids: Sequence[str]) -> None:
        batch = self.write_batch()
        for start in range(0, len(ids), batch):
            self.collection.delete(ids=list(ids[start : start + batch]))

    def ids_of(self, paper_id: str, unit: str | None = None) -> list[str]:
        """The ids of a paper's chunks, or of one of its units' ("abstract", "fulltext")."""
        where: dict[str, Any] = {"paper_id": paper_id}
        if unit is not None:
            kinds = list(UNIT_KINDS.get(unit, (unit,)))
            where = {"$and": [{"paper_id": paper_id}, {"kind": {"$in": kinds}}]}
        return list(self.collection.get(where=where, include=[])["ids"])

    def count(self) -> int:
        return int(self.collection.count())

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these chunks, by id; ids the collection lacks are left out."""
        if not ids:
            return {}  # Chroma refuses an empty list of ids
        found = self.collection.get(ids=list(ids), include=["embeddings"])
        embeddings = found["embeddings"]
        if embeddings is None:
            return {}
        return {
            chunk_id: np.asarray(vector, dtype=np.float32)
            for chunk_id, vector in zip(found["ids"], embeddings, strict=True)
        }

    def search(self, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """The `k` chunks nearest to `vector`: (chunk id, cosine similarity), best first.

        Honours the paper ids and the date range of `filters`. Categories are stored
        as one space-separated string, which Chroma cannot match a member of, so the
        caller applies them. An author must have been resolved (`Filters.within`).
        """
        filters.check_resolved()
        result = self.collection.query(
            query_embeddings=[vector],
            n_results=k,
            where=_where(filters),  # type: ignore[arg-type] # chroma's Where type is a deep union
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = (result["distances"] or [[]])[0]
        return [
            (chunk_id, 1.0 - float(distance))
            for chunk_id, distance in zip(ids, distances, strict=True)
        ]


def _where(filters: Filters) -> dict[str, object] | None:
    """Chroma's metadata filter for the paper ids and dates of `filters`."""
    clauses: list[dict[str, object]] = []
    if filters.searched_papers:
        clauses.append({"paper_id": {"$in": list(filters.searched_papers)}})
    low, high = filters.published_range
    dated: list[dict[str, object]] = []
    if low is not None:
        dated.append({"published_int": {"$gte": low}})
    if high is not None:
        dated.append({"published_int": {"$lte": high}})
    if dated:
        # A paper of unknown date (0) is kept: nothing says it is outside the range.
        in_range = dated[0] if len(dated) == 1 else {"$and": dated}
        clauses.append({"$or": [in_range, {"published_int": 0}]})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
