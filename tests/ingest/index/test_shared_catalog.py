"""The catalog shared by several machines: its change log, the lexical replicas that follow
it, a commit a guard refuses, arrivals, migrations at once, and copying a file into it."""

from __future__ import annotations

import contextlib
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog, CatalogError
from ingest.index.copying import copy_catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.lexical.replica import LexicalReplica
from ingest.index.records import Chunk, Paper
from ingest.index.tables import arrivals, database
from ingest.index.tables.database import CatalogDb
from ingest.index.tables.steps import LATEST
from tests.conftest import postgres_schema
from tests.support.running.concurrency import at_once


def _paper(paper_id: str, title: str, authors: str = "Ada Lovelace") -> Paper:
    return Paper(id=paper_id, title=title, authors=authors, categories=("cs.CL",),
                 version="v1", published="2024-01-02")  # fmt: skip


def _write(catalog: Catalog, paper: Paper, text: str, kind: str = "abstract") -> None:
    chunk = Chunk(f"{paper.id}#{kind}-0@{abs(hash(text))}", paper.id, kind, 0, text, "", 0, 0,
                  paper)  # fmt: skip
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", kind, text, [chunk])


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    yield catalog
    catalog.close()


def _texts(lexical: LexicalIndex, query: str) -> set[str]:
    return {paper_id for _, paper_id, _ in lexical.search(query, 10, fix_typos=False)}


def test_each_committed_change_is_logged_in_commit_order(catalog: Catalog) -> None:
    _write(catalog, _paper("2401.00001", "Sparse retrieval"), "sparse lexical retrieval")
    _write(catalog, _paper("2401.00002", "Dense retrieval"), "dense vectors")
    _write(catalog, _paper("2401.00001", "Sparse retrieval"), "sparse retrieval again")

    changes = catalog.changes_after(0, 100)

    assert [(c.paper_id, c.unit) for c in changes] == [
        ("2401.00001", "paper"),
        ("2401.00001", "abstract"),
        ("2401.00002", "paper"),
        ("2401.00002", "abstract"),
        ("2401.00001", "abstract"),
    ]
    assert [c.seq for c in changes] == sorted(c.seq for c in changes)
    assert catalog.last_change() == changes[-1].seq


def test_a_refused_commit_leaves_nothing_and_logs_nothing(catalog: Catalog) -> None:
    class LeaseLost(PaperchatError):
        pass

    def refuse(_db: CatalogDb) -> None:
        raise LeaseLost("the job belongs to another worker now")

    paper = _paper("2401.00003", "Late writer")
    with pytest.raises(LeaseLost), catalog.transaction(refuse):
        catalog.replace_unit(paper, "metadata", "abstract", "d", [])

    assert catalog.get_paper(paper.id) is None
    assert catalog.last_change() == 0
    # The connection is usable again: the next transaction commits.
    _write(catalog, paper, "written by the owner")
    assert catalog.get_paper(paper.id) is not None


def test_a_replica_follows_the_log_and_replaying_it_changes_nothing(
    catalog: Catalog, tmp_path: Path
) -> None:
    lexical = LexicalIndex(tmp_path / "lexical")
    replica = LexicalReplica(catalog, lexical, tmp_path / "replica.json")
    _write(catalog, _paper("2401.00001", "Sparse"), "tantivy sparse retrieval")
    replica.catch_up()  # a new replica: built from the catalog
    assert _texts(lexical, "tantivy") == {"2401.00001"}

    _write(catalog, _paper("2401.00002", "Dense"), "hnsw graph search")
    _write(catalog, _paper("2401.00001", "Sparse"), "bm25 weighting")
    assert replica.state().lag == 3  # the second paper's arrival and abstract, the first's
    assert replica.catch_up() == 3

    assert replica.state().lag == 0
    assert _texts(lexical, "hnsw") == {"2401.00002"}
    assert _texts(lexical, "bm25") == {"2401.00001"}
    assert _texts(lexical, "tantivy") == set()
    # A node killed after applying but before noting it replays: the same documents.
    replica._save(0)
    replica.catch_up()
    assert lexical.count() == catalog.chunk_count() == 2


def test_a_deleted_paper_leaves_the_replica(catalog: Catalog, tmp_path: Path) -> None:
    lexical = LexicalIndex(tmp_path / "lexical")
    replica = LexicalReplica(catalog, lexical, tmp_path / "replica.json")
    _write(catalog, _paper("2401.00001", "Sparse"), "tantivy sparse retrieval")
    replica.catch_up()
    with catalog.transaction():
        catalog.delete_paper("2401.00001")

    replica.catch_up()

    assert lexical.count() == 0


def test_a_new_replica_is_built_from_the_catalog_and_an_up_to_date_one_adopted(
    catalog: Catalog, tmp_path: Path
) -> None:
    for n in range(3):
        _write(catalog, _paper(f"2401.0000{n}", f"Paper {n}"), f"words number{n}")
    lexical = LexicalIndex(tmp_path / "lexical")

    LexicalReplica(catalog, lexical, tmp_path / "a.json").catch_up()
    assert lexical.count() == 3
    adopted = LexicalReplica(catalog, lexical, tmp_path / "b.json")
    assert adopted.applied() is None
    adopted.catch_up()

    assert adopted.state().lag == 0
    assert _texts(lexical, "number2") == {"2401.00002"}


def test_arrival_numbers_are_never_reused(catalog: Catalog) -> None:
    _write(catalog, _paper("2401.00001", "First"), "a")
    _write(catalog, _paper("2401.00002", "Second"), "b")
    newest = arrivals.last_arrival(catalog.db)
    with catalog.transaction():
        catalog.delete_paper("2401.00002")

    _write(catalog, _paper("2401.00003", "Third"), "c")

    found = arrivals.arrived_after(catalog.db, newest, 10)
    assert [paper_id for _, paper_id in found] == ["2401.00003"]
    # A new version of a known paper keeps its place.
    _write(catalog, _paper("2401.00001", "First, revised"), "a2")
    assert arrivals.arrived_after(catalog.db, found[0][0], 10) == []


def test_nodes_opening_a_new_shared_catalog_at_once_migrate_it_once() -> None:
    with postgres_schema() as url:
        failures = at_once(lambda: Catalog(url).close(), catching=(PaperchatError,))

        assert failures == []
        catalog = Catalog(url)
        assert catalog.get_meta("schema_version") == str(LATEST)
        catalog.close()


def test_an_unreachable_database_is_a_clear_error_without_its_password() -> None:
    with pytest.raises(CatalogError, match="cannot open the catalog") as raised:
        Catalog("postgresql+psycopg://nobody:hunter2@127.0.0.1:1/none?connect_timeout=2")

    assert "hunter2" not in str(raised.value)
    assert "127.0.0.1" in str(raised.value)


def test_a_catalog_file_copies_into_a_shared_catalog_whole(tmp_path: Path) -> None:
    source = Catalog(tmp_path / "catalog.sqlite")
    papers = [_paper(f"2401.0000{n}", f"Paper {n}", f"Grace Hopper, Author {n}") for n in range(5)]
    for paper in papers:
        _write(source, paper, f"text of {paper.id}")
    with source.transaction():
        source.delete_paper("2401.00002")
    with postgres_schema() as url:
        target = Catalog(url)

        copied = copy_catalog(source, target)

        assert copied["papers"] == 4
        assert target.stats() == source.stats()
        assert target.last_change() == source.last_change()
        assert arrivals.arrived_after(target.db, 0, 10) == arrivals.arrived_after(source.db, 0, 10)
        person = target.person("G. Hopper")
        assert person is not None
        assert len(target.paper_ids_of(person)) == 4
        # Numbering goes on after the copied log.
        _write(target, _paper("2401.00009", "After the copy"), "new")
        assert target.last_change() > source.last_change()
        with pytest.raises(CatalogError, match="not empty"):
            copy_catalog(source, target)
        target.close()
    source.close()


def test_an_empty_list_of_ids_finds_nothing_on_either_database(catalog: Catalog) -> None:
    _write(catalog, _paper("2401.00001", "Sparse"), "text")

    assert catalog.chunk_rows([]) == {}
    assert catalog.bylines([]) == {}


def test_a_replica_whose_files_were_lost_is_built_again(catalog: Catalog, tmp_path: Path) -> None:
    _write(catalog, _paper("2401.00001", "Sparse"), "tantivy sparse retrieval")
    LexicalReplica(catalog, LexicalIndex(tmp_path / "lexical"), tmp_path / "r.json").catch_up()
    shutil.rmtree(tmp_path / "lexical")  # the mark stays behind
    lexical = LexicalIndex(tmp_path / "lexical")

    LexicalReplica(catalog, lexical, tmp_path / "r.json").catch_up()

    assert _texts(lexical, "tantivy") == {"2401.00001"}


def test_pruning_keeps_the_latest_changes_and_never_reuses_a_number(catalog: Catalog) -> None:
    for n in range(3):
        _write(catalog, _paper(f"2401.0000{n}", f"Paper {n}"), f"words number{n}")
    latest = catalog.last_change()

    pruned = catalog.prune_changes(keep=2)
    everything = catalog.prune_changes(keep=1)
    _write(catalog, _paper("2401.00009", "After"), "later words")

    assert pruned == latest - 2
    assert everything == 1
    assert catalog.first_change() == latest
    assert [c.seq for c in catalog.changes_after(0, 10)] == [latest, latest + 1, latest + 2]
    with pytest.raises(ValueError, match="at least one change is kept"):
        catalog.prune_changes(keep=0)


def test_a_replica_behind_what_was_pruned_is_built_whole_again(
    catalog: Catalog, tmp_path: Path
) -> None:
    lexical = LexicalIndex(tmp_path / "lexical")
    replica = LexicalReplica(catalog, lexical, tmp_path / "replica.json")
    _write(catalog, _paper("2401.00001", "Sparse"), "tantivy sparse retrieval")
    replica.catch_up()
    # Rewritten with as many chunks as before: only the log tells the replica, and the
    # log's rows of it are pruned.
    _write(catalog, _paper("2401.00001", "Sparse"), "bm25 weighting")
    _write(catalog, _paper("2401.00002", "Dense"), "hnsw graph search")
    catalog.prune_changes(keep=1)

    replica.catch_up()

    assert replica.state().lag == 0
    assert _texts(lexical, "bm25") == {"2401.00001"}
    assert _texts(lexical, "tantivy") == set()
    assert _texts(lexical, "hnsw") == {"2401.00002"}


def test_a_node_stopped_inside_a_transaction_loses_it_and_its_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(database, "IDLE_IN_TRANSACTION_S", 1.0)
    with postgres_schema() as url:
        stopped, other = Catalog(url), Catalog(url)
        try:
            stopped.db.begin()
            stopped.db.lock("writes")
            stopped.db.execute("INSERT INTO meta (key, value) VALUES ('stopped', 'x')")
            # ...and it stops here, holding the write lock: another node's write waits for
            # the server to end that session, not forever.
            done = threading.Event()

            def write() -> None:
                with other.transaction():
                    other.set_meta("other", "y")
                done.set()

            writer = threading.Thread(target=write, daemon=True)
            writer.start()
            writer.join(timeout=60)
            assert done.is_set()
            with pytest.raises(Exception, match=r"idle-in-transaction|terminat|closed"):
                stopped.db.commit()
            assert other.get_meta("other") == "y"
            assert other.get_meta("stopped") is None
        finally:
            if stopped.db.in_transaction:  # the timeout did not end it: let the writer go
                with contextlib.suppress(Exception):
                    stopped.db.rollback()
            stopped.close()
            other.close()
