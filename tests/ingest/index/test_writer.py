from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.chunking import Piece, make_chunks, unit_hash
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Paper
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import Indexer, UnitWork
from tests.support.worlds.vectors import unit_vectors

PAPER = Paper(
    id="2005.11401", title="Retrieval-augmented generation", abstract="RAG.", version="v1"
)


def _work(texts: list[str], kind: str = "fulltext", paper: Paper = PAPER) -> UnitWork:
    pieces = [Piece(t, "3 Experiments", 5, 5) for t in texts]
    digest = unit_hash(paper, kind, pieces)
    chunks = tuple(make_chunks(paper, kind, pieces, digest))
    return UnitWork(paper, kind, "pdf", "test.pdf", digest, chunks, ("sha", 19, "rag", "2", ""))


@pytest.fixture
def indexer(tmp_path: Path, catalog_location: str) -> Iterator[Indexer]:
    catalog = Catalog(catalog_location)
    yield Indexer(catalog, ChunkStore(open_chroma(tmp_path), "m"), LexicalIndex(tmp_path / "lex"))
    catalog.close()


def _lexical(indexer: Indexer) -> LexicalIndex:
    assert indexer.lexical is not None  # a catalog in a file: the indexer writes it
    return indexer.lexical


def _both(indexer: Indexer) -> tuple[set[str], set[str]]:
    """Chunk ids in Chroma and in the catalog; the lexical index must match the catalog."""
    in_chroma = set(indexer.store.collection.get(include=[])["ids"])
    in_catalog = {r[0] for r in indexer.catalog.db.execute("SELECT id FROM chunks")}
    assert _lexical(indexer).chunk_ids() == in_catalog
    return in_chroma, in_catalog


def test_write_puts_the_same_chunks_in_both_indexes(indexer: Indexer) -> None:
    work = _work(["marginalize over retrieved passages", "a dense passage retriever"])

    indexer.write([work], unit_vectors(2))

    in_chroma, in_catalog = _both(indexer)
    assert in_chroma == in_catalog == {c.id for c in work.chunks}
    assert [paper for _, paper, _ in _lexical(indexer).search("retriever passages")] == [
        PAPER.id
    ] * 2


def test_new_version_replaces_old_chunks_everywhere(indexer: Indexer) -> None:
    indexer.write([_work(["old text one", "old text two", "old three"])], unit_vectors(3))
    new = _work(["new text"])

    deleted = indexer.write([new], unit_vectors(1))

    assert deleted == 3
    in_chroma, in_catalog = _both(indexer)
    assert in_chroma == in_catalog == {new.chunks[0].id}
    assert _lexical(indexer).search("old") == []
    assert indexer.catalog.unit_states([PAPER.id], "fulltext")[PAPER.id].digest == new.digest


def test_recover_removes_what_a_killed_write_left_in_chroma(indexer: Indexer) -> None:
    indexer.write([_work(["kept text"])], unit_vectors(1))
    half = _work(["half written one", "half written two"])
    indexer.catalog.mark_pending([half.unit])
    indexer.store.upsert(list(half.chunks), unit_vectors(2))  # killed before the catalog commit

    removed = indexer.recover()

    assert removed == 2
    in_chroma, in_catalog = _both(indexer)
    assert in_chroma == in_catalog
    assert indexer.catalog.pending_units() == []


def test_delete_paper_empties_both_indexes(indexer: Indexer) -> None:
    indexer.write([_work(["body"]), _work(["RAG abstract"], kind="abstract")], unit_vectors(2))

    removed = indexer.delete_paper(PAPER.id)

    assert removed == 2
    assert _both(indexer) == (set(), set())
    assert indexer.catalog.get_paper(PAPER.id) is None
    assert _lexical(indexer).count() == 0


def test_pdf_record_does_not_overwrite_a_metadata_record(indexer: Indexer) -> None:
    real = Paper(id=PAPER.id, title="The real title", abstract="From arXiv.", version="v4")
    abstract = _work(["The real title\n\nFrom arXiv."], kind="abstract", paper=real)
    abstract = UnitWork(real, "abstract", "metadata", "f", abstract.digest, abstract.chunks)
    indexer.write([abstract], unit_vectors(1))

    indexer.write([_work(["body text"])], unit_vectors(1))

    paper = indexer.catalog.get_paper(PAPER.id)
    assert paper is not None
    assert (paper.title, paper.version) == ("The real title", "v4")
    assert indexer.catalog.stats()["papers_with_fulltext"] == 1
