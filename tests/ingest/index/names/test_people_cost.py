"""What telling people apart costs: the names of one surname are compared once for all the
names asked with it, and a full first name only with the spellings that may be it, so a
surname shared by thousands (Wang, Li, Zhang) costs about its size, not its square."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from ingest.index.catalog import Catalog
from ingest.index.names import people
from ingest.index.records import Paper

# 100 first names of one initial and three initial-only spellings, of one surname: what
# "Y. Wang" and the Yi, Yu, Yan ... Wangs of a real library look like.
GIVEN = [f"Y{a}{b}" for a in "aeiou" for b in "bcdfghjklmnpqrstvwxz"]
SPELLINGS = [*(f"{given} Wang" for given in GIVEN), "Y. Wang", "Y. Q. Wang", "Y. R. Wang"]


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    with catalog.transaction():
        for number, name in enumerate(SPELLINGS):
            paper = Paper(id=f"2401.{number:05d}", title="A paper", authors=f"{name}, Ann Lee")
            catalog.replace_unit(paper, "metadata", "abstract", "digest", [])
    yield catalog
    catalog.close()


def _counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    calls = count()
    compare = people.compatible

    def counted(a: Any, b: Any) -> bool:
        next(calls)
        return compare(a, b)

    monkeypatch.setattr(people, "compatible", counted)
    return calls


def test_a_surnames_names_are_read_once_for_all_asked(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    statements: list[str] = []
    execute = catalog.db.execute

    def recorded(sql: str, params: Any = ()) -> Any:
        statements.append(sql)
        return execute(sql, params)

    monkeypatch.setattr(catalog.db, "execute", recorded)

    found = catalog.people([*SPELLINGS, "Ann Lee", "Nobody Here"])

    assert found["Nobody Here"] is None
    assert all(found[name] for name in SPELLINGS)
    assert sum("FROM paper_authors" in sql for sql in statements) == 1


def test_names_of_a_large_surname_are_compared_about_once_each(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(monkeypatch)
    indexed = len(SPELLINGS)

    singly = {name: catalog.person(name) for name in SPELLINGS}
    compared = next(calls)
    together = catalog.people(SPELLINGS)

    assert together == singly
    # Each name asked against every name, and each initial against them all again, made
    # 40,909 comparisons here; a few per name now.
    assert compared < 20 * indexed
    assert next(calls) - compared - 1 < 10 * indexed


def test_a_listed_paper_reads_only_the_first_of_thousands_of_authors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    parse = people.parse_name

    def counted(written: str) -> people.Name | None:
        parsed.append(written)
        return parse(written)

    monkeypatch.setattr(people, "parse_name", counted)
    authors = ", ".join(f"Member{n} Physicist" for n in range(5_000))

    names, more = people.first_names(authors, 20)

    assert names == [f"Member{n} Physicist" for n in range(20)]
    assert more == 4_980
    assert len(parsed) == 20
