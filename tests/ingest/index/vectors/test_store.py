from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ingest.index.filters import Filters, UnresolvedAuthor
from ingest.index.records import Chunk, Paper
from ingest.index.vectors.store import (
    COLLECTION,
    DROPPED_FIELDS,
    SEARCH_EF,
    WRITE_BATCH,
    ChunkStore,
    EmbedderMismatch,
    IndexUnavailable,
    chunk_metadata,
    open_chroma,
)
from tests.support.worlds.vectors import unit_vectors

REPO = Path(__file__).resolve().parents[4]

PAPER = Paper(
    id="2112.04426",
    title="Improving language models by retrieving from trillions of tokens",
    authors="Sebastian Borgeaud, Arthur Mensch",
    categories=("cs.CL", "cs.LG"),
    version="v1",
    published="2021-12-08",
)


def _chunks(n: int, kind: str = "fulltext", paper: Paper = PAPER) -> list[Chunk]:
    return [
        Chunk(f"{paper.id}#{kind}-{i}@abc", paper.id, kind, i, f"text {i}", "2 Method", 3, 4, paper)
        for i in range(n)
    ]


PAPER_IDS = (PAPER.id, "2305.00001", "2403.00001")


def _papers_of(hits: list[tuple[str, float]]) -> set[str]:
    return {chunk_id.partition("#")[0] for chunk_id, _ in hits}


def _best(hit: tuple[str, float]) -> float:
    return -hit[1]


@pytest.fixture
def three_papers(store: ChunkStore) -> ChunkStore:
    """Four chunks each of papers published 2021-12-08, 2023-05-01 and 2024-03-01."""
    papers = [
        PAPER,
        dataclasses.replace(PAPER, id="2305.00001", published="2023-05-01"),
        dataclasses.replace(PAPER, id="2403.00001", published="2024-03-01"),
    ]
    chunks = [c for paper in papers for c in _chunks(4, paper=paper)]
    store.upsert(chunks, unit_vectors(len(chunks)))
    return store


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ChunkStore:
    if request.param == "embedded":
        return ChunkStore(open_chroma(tmp_path / "chroma"), "minilm")
    url: str = request.getfixturevalue("empty_chroma_server")
    return ChunkStore(open_chroma(tmp_path, url), "minilm")


def test_upsert_stores_vectors_documents_and_filter_metadata_without_the_record(
    store: ChunkStore,
) -> None:
    chunks = _chunks(3)

    store.upsert(chunks, unit_vectors(3))

    got = store.collection.get(ids=[chunks[1].id], include=["metadatas", "documents"])
    meta = got["metadatas"][0]  # type: ignore[index]
    assert got["documents"] == ["text 1"]
    assert meta["paper_id"] == "2112.04426"
    assert meta["primary_category"] == "cs.CL"
    assert meta["published_int"] == 20211208
    assert meta["categories"] == "cs.CL cs.LG"
    assert (meta["kind"], meta["section"], meta["page_start"], meta["page_end"]) == (
        "fulltext", "2 Method", 3, 4,
    )  # fmt: skip
    assert not set(DROPPED_FIELDS) & set(meta)  # read from the catalog
    assert store.collection.configuration_json["hnsw"]["space"] == "cosine"
    assert store.search_ef() == SEARCH_EF


def test_search_returns_the_nearest_chunks_best_first_as_cosine_similarity(
    three_papers: ChunkStore,
) -> None:
    vectors = unit_vectors(12)
    ids = [f"{paper}#fulltext-{i}@abc" for paper in PAPER_IDS for i in range(4)]
    exact = sorted(zip(ids, (float(vectors[5] @ v) for v in vectors), strict=True), key=_best)

    hits = three_papers.search(vectors[5], 12, Filters())
    top = three_papers.search(vectors[5], 3, Filters())

    assert hits[0][0] == "2305.00001#fulltext-1@abc"
    assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [chunk_id for chunk_id, _ in hits] == [chunk_id for chunk_id, _ in exact]
    assert [s for _, s in hits] == pytest.approx([s for _, s in exact], abs=1e-5)
    assert top == hits[:3]


def test_search_keeps_to_the_papers_asked_for(three_papers: ChunkStore) -> None:
    near_the_first_paper = unit_vectors(12)[0]

    hits = three_papers.search(near_the_first_paper, 12, Filters(paper_ids=("2403.00001",)))
    two = three_papers.search(
        near_the_first_paper, 12, Filters(paper_ids=("2305.00001", "2403.00001"))
    )

    assert len(hits) == 4
    assert _papers_of(hits) == {"2403.00001"}
    assert _papers_of(two) == {"2305.00001", "2403.00001"}


def test_search_keeps_to_the_papers_an_author_was_resolved_to(three_papers: ChunkStore) -> None:
    near_the_first_paper = unit_vectors(12)[0]
    author = Filters(author="Arthur Mensch")

    hits = three_papers.search(near_the_first_paper, 12, author.within(["2305.00001"]))

    assert _papers_of(hits) == {"2305.00001"}
    with pytest.raises(UnresolvedAuthor):
        three_papers.search(near_the_first_paper, 12, author)


@pytest.mark.parametrize(
    ("published_from", "published_to", "papers"),
    [
        ("2023-01-01", "", {"2305.00001", "2403.00001"}),
        ("", "2023-12-31", {"2112.04426", "2305.00001"}),
        ("2023-05-01", "2023-05-01", {"2305.00001"}),
        ("2024-03-02", "", set()),
    ],
)
def test_search_keeps_to_the_dates_asked_for_both_ends_included(
    three_papers: ChunkStore, published_from: str, published_to: str, papers: set[str]
) -> None:
    filters = Filters(published_from=published_from, published_to=published_to)

    hits = three_papers.search(unit_vectors(12)[0], 12, filters)

    assert _papers_of(hits) == papers
    assert len(hits) == 4 * len(papers)


def test_search_combines_paper_and_date_filters(three_papers: ChunkStore) -> None:
    filters = Filters(paper_ids=("2112.04426", "2403.00001"), published_from="2022-01-01")

    hits = three_papers.search(unit_vectors(12)[0], 12, filters)

    assert _papers_of(hits) == {"2403.00001"}


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


class CountedWrites:
    """The collection's own write methods, with how many records each call sent."""

    def __init__(self, store: ChunkStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sizes: dict[str, list[int]] = {"upsert": [], "update": [], "delete": []}
        for name, sizes in self.sizes.items():
            write = getattr(store.collection, name)

            def counted(*args: Any, _write: Any = write, _sizes: Any = sizes, **kw: Any) -> Any:
                _sizes.append(len(kw["ids"]))
                return _write(*args, **kw)

            monkeypatch.setattr(store.collection, name, counted)


def test_writes_go_to_chroma_in_batches_of_at_most_300(
    store: ChunkStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = _chunks(2 * WRITE_BATCH + 50)
    counted = CountedWrites(store, monkeypatch)

    store.upsert(chunks, unit_vectors(len(chunks)))
    stored = store.count()
    store.refresh_metadata(chunks)
    store.delete([c.id for c in chunks[:-1]])

    assert WRITE_BATCH == 300
    assert counted.sizes == {
        "upsert": [300, 300, 50],
        "update": [300, 300, 50],
        "delete": [300, 300, 49],
    }
    assert stored == len(chunks)
    assert store.ids_of(PAPER.id) == [chunks[-1].id]


def test_an_index_built_with_titles_on_its_chunks_is_searched_and_sheds_them_on_refresh(
    store: ChunkStore,
) -> None:
    chunks = _chunks(3)
    record = {"title": PAPER.title, "authors": PAPER.authors}
    store.collection.upsert(
        ids=[c.id for c in chunks],
        embeddings=unit_vectors(3),
        documents=[c.text for c in chunks],
        metadatas=[chunk_metadata(c) | record for c in chunks],
    )

    hits = store.search(unit_vectors(3)[1], 3, Filters(paper_ids=(PAPER.id,)))
    store.refresh_metadata(chunks[:2])

    got = store.collection.get(ids=[c.id for c in chunks], include=["metadatas"])
    metadata = dict(zip(got["ids"], got["metadatas"] or [], strict=True))
    kept = [set(DROPPED_FIELDS) & set(metadata[c.id]) for c in chunks]
    assert hits[0][0] == chunks[1].id
    assert kept == [set(), set(), set(DROPPED_FIELDS)]
    assert [metadata[c.id]["paper_id"] for c in chunks] == [PAPER.id] * 3
