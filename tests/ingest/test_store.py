from __future__ import annotations

from pathlib import Path

import pytest

from ingest.index.records import Chunk, Paper
from ingest.index.store import (
    COLLECTION,
    SEARCH_EF,
    ChunkStore,
    EmbedderMismatch,
    IndexUnavailable,
    open_chroma,
)
from tests.vectors import unit_vectors

PAPER = Paper(
    id="2112.04426",
    title="Improving language models by retrieving from trillions of tokens",
    authors="Sebastian Borgeaud, Arthur Mensch",
    categories=("cs.CL", "cs.LG"),
    version="v1",
    published="2021-12-08",
)


def _chunks(n: int, kind: str = "fulltext") -> list[Chunk]:
    return [
        Chunk(f"{PAPER.id}#{kind}-{i}@abc", PAPER.id, kind, i, f"text {i}", "2 Method", 3, 4, PAPER)
        for i in range(n)
    ]


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ChunkStore:
    if request.param == "embedded":
        return ChunkStore(open_chroma(tmp_path / "chroma"), "minilm")
    url: str = request.getfixturevalue("empty_chroma_server")
    return ChunkStore(open_chroma(tmp_path, url), "minilm")


def test_upsert_stores_vectors_documents_and_citation_metadata(store: ChunkStore) -> None:
    chunks = _chunks(3)

    store.upsert(chunks, unit_vectors(3))

    got = store.collection.get(ids=[chunks[1].id], include=["metadatas", "documents"])
    meta = got["metadatas"][0]  # type: ignore[index]
    assert got["documents"] == ["text 1"]
    assert meta["paper_id"] == "2112.04426"
    assert meta["primary_category"] == "cs.CL"
    assert meta["published_int"] == 20211208
    assert (meta["kind"], meta["section"], meta["page_start"], meta["page_end"]) == (
        "fulltext", "2 Method", 3, 4,
    )  # fmt: skip
    assert store.collection.configuration_json["hnsw"]["space"] == "cosine"
    assert store.search_ef() == SEARCH_EF


def test_an_index_made_with_chromas_default_search_width_is_searched_wider(
    tmp_path: Path,
) -> None:
    client = open_chroma(tmp_path / "chroma")
    client.create_collection(
        COLLECTION, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
    )
    default = client.get_collection(COLLECTION).configuration["hnsw"]["ef_search"]  # type: ignore[index]

    ChunkStore(client, "minilm")

    again = ChunkStore(open_chroma(tmp_path / "chroma"), "minilm")
    assert default < SEARCH_EF
    assert again.search_ef() == SEARCH_EF


def test_ids_of_filters_by_paper_and_kind_and_delete_removes(store: ChunkStore) -> None:
    chunks = _chunks(3) + _chunks(1, kind="abstract")
    store.upsert(chunks, unit_vectors(4))

    fulltext = store.ids_of(PAPER.id, "fulltext")
    store.delete(fulltext[:2])

    assert len(fulltext) == 3
    assert store.ids_of(PAPER.id, "abstract") == [chunks[3].id]
    assert store.count() == 2


def test_a_collection_built_by_another_embedder_is_refused(tmp_path: Path) -> None:
    client = open_chroma(tmp_path / "chroma")
    ChunkStore(client, "minilm")

    with pytest.raises(EmbedderMismatch, match="built with 'minilm'"):
        ChunkStore(client, "openai/text-embedding-3-small")


def test_bad_chroma_url_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IndexUnavailable, match="not an http"):
        open_chroma(tmp_path, "ftp://127.0.0.1:1")
