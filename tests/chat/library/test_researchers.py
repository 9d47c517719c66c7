"""A researcher's profile costs what its own papers hold, bounded: co-authors are looked up
all at once, at most `MAX_COAUTHOR_NAMES` of them, however many authors a paper lists."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat.library.researchers import MAX_COAUTHOR_NAMES, researcher
from ingest.index.catalog import Catalog
from ingest.index.records import Paper

CROWD = 2_000  # the authors of one paper, as a detector collaboration lists them


def _crowd() -> str:
    return ", ".join(f"Member{n} Physicist{n % 300}" for n in range(CROWD))


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    papers = [
        Paper(id="2401.00001", title="A small paper", authors="Ada Lovelace, Charles Babbage"),
        Paper(
            id="2401.00002", title="Another", authors="Ada Lovelace, C. Babbage, Mary Somerville"
        ),
        Paper(id="2401.00003", title="A detector", authors=f"Ada Lovelace, {_crowd()}"),
    ]
    with catalog.transaction():
        for paper in papers:
            catalog.replace_unit(paper, "metadata", "abstract", "digest", [])
    yield catalog
    catalog.close()


def test_coauthors_are_counted_by_person_once_a_paper(catalog: Catalog) -> None:
    person = catalog.person("Ada Lovelace")
    assert person is not None

    page = researcher(catalog, person)

    shared = {c.name: c.shared for c in page.coauthors}
    assert shared["Charles Babbage"] == 2
    assert shared["Mary Somerville"] == 1
    assert [a.position for a in page.papers] == ["first", "first", "first"]


def test_a_paper_of_thousands_of_authors_costs_a_bounded_number_of_lookups(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    person = catalog.person("Ada Lovelace")
    assert person is not None
    statements: list[str] = []
    asked: list[str] = []
    execute, people = catalog.db.execute, catalog.people

    def recorded(sql: str, params: Any = ()) -> Any:
        statements.append(sql)
        return execute(sql, params)

    def counted(names: Any) -> Any:
        names = list(names)
        asked.extend(names)
        return people(names)

    monkeypatch.setattr(catalog.db, "execute", recorded)
    monkeypatch.setattr(catalog, "people", counted)
    monkeypatch.setattr(catalog, "person", lambda name: counted([name])[name])

    page = researcher(catalog, person)

    assert len(page.coauthors) == 50
    assert len(asked) <= MAX_COAUTHOR_NAMES
    assert len(statements) < 20
