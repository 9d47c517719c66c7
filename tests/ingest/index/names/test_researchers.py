"""Researchers' ids in the catalog: made from the name key alone, recorded for every key."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ingest.index.catalog import Catalog
from ingest.index.names.researchers import person_id, researcher_id
from ingest.index.records import Paper


def _paper(paper_id: str, authors: str) -> Paper:
    return Paper(id=paper_id, title=f"Paper {paper_id}", authors=authors, published="2024-01-01")


def _add(catalog: Catalog, *papers: Paper) -> None:
    with catalog.transaction():
        for paper in papers:
            catalog.replace_unit(paper, "metadata", "abstract", "digest", [])


def _id_of(catalog: Catalog, name: str) -> str:
    person = catalog.person(name)
    assert person is not None
    return person_id(person)


def test_an_id_does_not_change_when_other_peoples_papers_arrive(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _add(catalog, _paper("1706.03762", "Ashish Vaswani, Noam Shazeer"))
    before = _id_of(catalog, "A. Vaswani")

    _add(
        catalog, *(_paper(f"2401.{n:05d}", f"Author{n} Other{n}, Ada Lovelace") for n in range(50))
    )
    after = _id_of(catalog, "A. Vaswani")
    rebuilt = Catalog(tmp_path / "again.sqlite")
    _add(rebuilt, _paper("1706.03762", "Ashish Vaswani, Noam Shazeer"))

    assert before == after == _id_of(rebuilt, "Ashish Vaswani")
    assert catalog.researcher_key(before) == "ashish vaswani"


def test_every_spelling_has_an_id_that_finds_the_same_person(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    _add(
        catalog,
        _paper("1706.03762", "Ashish Vaswani, Noam Shazeer"),
        _paper("1803.02155", "A. Vaswani and N. Shazeer"),
        _paper("1901.00001", "Ashish K. Vaswani; Jakob Uszkoreit"),
    )

    keys = [catalog.researcher_key(researcher_id(k)) for k in ("a vaswani", "ashish k vaswani")]
    people = [catalog.person(k) for k in keys if k]

    assert keys == ["a vaswani", "ashish k vaswani"]
    assert {person_id(p) for p in people if p} == {researcher_id("ashish vaswani")}


def test_a_catalog_made_before_ids_records_them_as_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    catalog = Catalog(path)
    _add(catalog, _paper("1706.03762", "Ashish Vaswani, Noam Shazeer"))
    catalog.close()
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM researcher_ids")
        db.execute("DELETE FROM meta WHERE key = 'researcher_ids'")

    reopened = Catalog(path)

    assert reopened.researcher_key(researcher_id("noam shazeer")) == "noam shazeer"
