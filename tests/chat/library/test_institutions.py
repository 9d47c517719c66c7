"""An institution's page in the library: a parent's papers are also those of its units."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chat.library.institutions import institution
from ingest.index.catalog import Catalog
from ingest.index.names import institutions
from ingest.index.records import Paper


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    yield catalog
    catalog.close()


def _add(catalog: Catalog, paper_id: str, affiliations: list[tuple[str, str]]) -> None:
    paper = Paper(id=paper_id, title=f"Paper {paper_id}", authors="Ada Lovelace, Bo Author",
                  published=f"2024-01-{paper_id[-2:]}")  # fmt: skip
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", "digest", [])
        catalog.replace_affiliations(paper_id, "pdf", affiliations)


def test_a_parent_named_only_as_a_parent_lists_its_units_papers(catalog: Catalog) -> None:
    _add(catalog, "2401.00011", [("UC Berkeley", "University of California")])
    _add(catalog, "2401.00012", [("UC Santa Cruz", "University of California")])
    _add(catalog, "2401.00013", [("ETH Zurich", "")])

    parent = institution(catalog, institutions.institution_id("University of California"))
    unit = institution(catalog, institutions.institution_id("UC Berkeley"))

    assert [p.id for p, _ in parent.papers] == ["2401.00012", "2401.00011"]
    assert {u.name for u in parent.units} == {"UC Berkeley", "UC Santa Cruz"}
    assert [p.id for p, _ in unit.papers] == ["2401.00011"]


def test_a_paper_naming_a_parent_and_its_unit_is_listed_once(catalog: Catalog) -> None:
    _add(catalog, "2401.00021", [("Google Brain", "Google"), ("Google", "")])

    parent = institution(catalog, institutions.institution_id("Google"))

    assert [(p.id, source) for p, source in parent.papers] == [("2401.00021", "pdf")]


def test_the_list_counts_a_parents_papers_with_its_units(catalog: Catalog) -> None:
    _add(catalog, "2401.00031", [("UC Berkeley", "University of California")])
    _add(catalog, "2401.00032", [("UC Santa Cruz", "University of California")])

    listed = {name: count for _, name, count in institutions.listed_institutions(catalog.db)}

    assert listed == {"University of California": 2, "UC Berkeley": 1, "UC Santa Cruz": 1}
