"""Per-job recovery: a job run again puts right the units it left half written, and leaves
alone the pending units of other jobs, which may be being written at that moment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.chunking import Piece, make_chunks, unit_hash
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.tables.database import CatalogDb
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import UnitWork
from ingest.jobs.leases import LeaseLost
from ingest.jobs.queue import open_queue, prepare
from ingest.jobs.recovery import JobIndexer, _first_cause
from ingest.jobs.tasks import INGEST_PDF
from tests.conftest import postgres_schema
from tests.support.worlds.vectors import unit_vectors

pytestmark = pytest.mark.integration


def _work(paper_id: str, texts: list[str]) -> UnitWork:
    paper = Paper(id=paper_id, title=f"Paper {paper_id}", abstract="About it.", version="v1")
    pieces = [Piece(t, "2 Method", 1, 1) for t in texts]
    digest = unit_hash(paper, "fulltext", pieces)
    chunks = tuple(make_chunks(paper, "fulltext", pieces, digest))
    return UnitWork(paper, "fulltext", "pdf", f"{paper_id}.pdf", digest, chunks)


def _allow(_db: CatalogDb) -> None:
    return None


def _refuse(_db: CatalogDb) -> None:
    raise LeaseLost("taken by another worker")


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Catalog, ChunkStore, list[int]]]:
    """A catalog and a queue in one PostgreSQL schema, three queued jobs, an embedded Chroma."""
    with postgres_schema() as url:
        prepare(url)
        app = open_queue(url)
        with app.open():
            job_ids = [app.tasks[INGEST_PDF].defer(path=f"/{n}.pdf") for n in range(3)]
        catalog = Catalog(url)
        yield catalog, ChunkStore(open_chroma(tmp_path), "m"), job_ids
        catalog.close()


def _chroma_ids(store: ChunkStore) -> set[str]:
    return set(store.collection.get(include=[])["ids"])


def test_a_job_run_again_puts_right_only_its_own_units(
    parts: tuple[Catalog, ChunkStore, list[int]],
) -> None:
    catalog, store, (done_job, crashed_job, other_job) = parts
    done = _work("2101.00001", ["written whole"])
    JobIndexer(catalog, store, None, done_job, _allow).write([done], unit_vectors(1))
    mine, theirs = _work("2101.00002", ["half one", "half two"]), _work("2101.00003", ["other"])
    for job_id, work in ((crashed_job, mine), (other_job, theirs)):
        with pytest.raises(LeaseLost):  # the commit refused: Chroma written, the catalog not
            JobIndexer(catalog, store, None, job_id, _refuse).write(
                [work], unit_vectors(len(work.chunks))
            )
    assert _chroma_ids(store) >= {c.id for c in mine.chunks}

    removed = JobIndexer(catalog, store, None, crashed_job, _allow).recover()

    assert removed == 2
    assert catalog.pending_units() == [theirs.unit]
    expected = {c.id for c in done.chunks} | {c.id for c in theirs.chunks}
    assert _chroma_ids(store) == expected


def test_a_finished_job_forgets_its_units(parts: tuple[Catalog, ChunkStore, list[int]]) -> None:
    catalog, store, (job_id, _, _) = parts
    indexer = JobIndexer(catalog, store, None, job_id, _allow)
    indexer.write([_work("2101.00001", ["text"])], unit_vectors(1))
    noted = indexer.noted()

    indexer.forget()

    assert noted == [("2101.00001", "fulltext")]
    assert indexer.noted() == []


def _closed_after_a_refusal() -> None:
    try:
        raise RuntimeError("terminating connection due to idle-in-transaction timeout")
    except RuntimeError:
        raise ConnectionError("the connection is closed") from None


def test_a_refused_write_is_logged_by_the_error_that_began_it() -> None:
    with pytest.raises(ConnectionError) as raised:
        _closed_after_a_refusal()

    first = _first_cause(raised.value)

    assert str(first) == "terminating connection due to idle-in-transaction timeout"
