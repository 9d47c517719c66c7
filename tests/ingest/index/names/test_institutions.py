"""Institutions in the catalog: from a record's authors and from a PDF's page 1, their ids,
their parents, and what a paper's deletion leaves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.index.catalog import Catalog
from ingest.index.names import institutions
from ingest.index.records import Paper


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    yield catalog
    catalog.close()


def _add(catalog: Catalog, paper_id: str, authors: str) -> None:
    paper = Paper(id=paper_id, title=f"Paper {paper_id}", authors=authors, published="2024-01-01")
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", "digest", [])


def _listed(catalog: Catalog, name: str = "") -> dict[str, int]:
    return {n: c for _, n, c in institutions.listed_institutions(catalog.db, name)}


def test_a_records_parenthesised_affiliations_are_institutions(catalog: Catalog) -> None:
    _add(catalog, "2001.00001", 'Noam Shazeer (Google), J\\"urgen M\\"uller (ETH Zurich)')
    _add(catalog, "2001.00002", "Ada Lovelace (GOOGLE)")

    google = institutions.institution_id("Google")

    assert _listed(catalog) == {"Google": 2, "ETH Zurich": 1}
    assert institutions.institution_papers(catalog.db, google) == [
        ("2001.00001", "record"),
        ("2001.00002", "record"),
    ]


def test_a_unit_links_to_the_parent_its_pdf_names_and_stays_distinct(catalog: Catalog) -> None:
    _add(catalog, "1706.03762", "Ashish Vaswani, Niki Parmar")
    pdf = [("Google Brain", "Google, Inc."), ("Google Research", ""), ("Google, Inc.", "")]

    with catalog.transaction():
        catalog.replace_affiliations("1706.03762", "pdf", pdf)

    brain = institutions.find_institution(catalog.db, institutions.institution_id("Google Brain"))
    inc = institutions.institution_id("Google, Inc.")
    assert brain is not None
    assert brain[1:] == ("Google Brain", inc)
    assert institutions.units_of(catalog.db, inc) == [
        (institutions.institution_id("Google Brain"), "Google Brain")
    ]
    assert _listed(catalog, "google") == {
        "Google Brain": 1,
        "Google Research": 1,
        "Google, Inc.": 1,
    }


def test_a_team_printed_beside_its_organisation_is_a_unit_of_it(catalog: Catalog) -> None:
    _add(catalog, "2010.11929", "Alexey Dosovitskiy, Lucas Beyer")
    # As page 1 of ViT prints it: "Google Research, Brain Team".
    pdf = [("Google Research", ""), ("Brain Team", "")]

    with catalog.transaction():
        catalog.replace_affiliations("2010.11929", "pdf", pdf)

    research = institutions.institution_id("Google Research")
    team = institutions.find_institution(catalog.db, institutions.institution_id("Brain Team"))
    assert team is not None
    assert team[1:] == ("Brain Team", research)
    assert institutions.units_of(catalog.db, research) == [(team[0], "Brain Team")]
    assert institutions.with_team_parents([("Brain Team", ""), ("Google", "")]) == [
        ("Brain Team", "Google"),
        ("Google", ""),
    ]
    assert institutions.with_team_parents([("A Team", ""), ("B Group", "")]) == [
        ("A Team", ""),
        ("B Group", ""),
    ]


def test_reading_a_pdf_again_replaces_its_affiliations_but_not_the_records(
    catalog: Catalog,
) -> None:
    _add(catalog, "2001.00001", "Noam Shazeer (Google)")
    with catalog.transaction():
        catalog.replace_affiliations("2001.00001", "pdf", [("Google Brain", "")])
        catalog.replace_affiliations("2001.00001", "pdf", [("Google Research", "")])

    assert _listed(catalog) == {"Google": 1, "Google Research": 1}
    with catalog.transaction():
        catalog.delete_paper("2001.00001")
    assert _listed(catalog) == {}


def test_an_institutions_id_comes_from_its_name_alone(catalog: Catalog) -> None:
    _add(catalog, "2001.00001", "Noam Shazeer (Google Research)")
    before = institutions.listed_institutions(catalog.db)[0][0]

    for n in range(20):
        _add(catalog, f"2002.{n:05d}", f"Person{n} Other (University {n})")

    assert institutions.listed_institutions(catalog.db, "Google")[0][0] == before
    assert before == institutions.institution_id("google  research")


def test_a_catalog_made_before_institutions_reads_its_records_as_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    catalog = Catalog(path)
    _add(catalog, "2001.00001", "Noam Shazeer (Google Brain)")
    with catalog.transaction() as db:
        db.execute("DELETE FROM paper_institutions")
        db.execute("DELETE FROM meta WHERE key = 'record_affiliations'")
    catalog.close()

    reopened = Catalog(path)

    assert _listed(reopened) == {"Google Brain": 1}


@pytest.mark.parametrize(
    "value",
    [
        "00njsd438",
        "https://ror.org/00njsd438",
        "http://ror.org/00njsd438/",
        "ror.org/00NJSD438",
        " 00njsd438 ",
    ],
)
def test_a_ror_id_is_read_bare_or_as_its_url(value: str) -> None:
    assert institutions.ror_id(value) == "00njsd438"


@pytest.mark.parametrize(
    "value",
    ["00njsd439", "00njsd43", "10njsd438", "00njsd4i8", "https://example.org/00njsd438", ""],
)
def test_a_malformed_ror_id_or_a_wrong_check_is_refused(value: str) -> None:
    with pytest.raises(institutions.InvalidRorId, match="is not a ROR id"):
        institutions.ror_id(value)


def test_an_institution_is_found_by_the_ror_id_a_record_gives_it(catalog: Catalog) -> None:
    _add(catalog, "2001.00001", "Noam Shazeer (Google Research ror:00njsd438; Stanford)")
    _add(catalog, "2001.00002", "Ada Lovelace (Google Research)")
    _add(catalog, "2001.00003", "Bo Author (Harvard ror:03vek6s5)")  # a wrong id: no id

    research = institutions.institution_id("Google Research")

    assert _listed(catalog) == {"Google Research": 2, "Stanford": 1, "Harvard": 1}
    assert institutions.find_by_ror(catalog.db, "00njsd438") == research
    assert institutions.ror_of(catalog.db, research) == "00njsd438"
    assert institutions.ror_of(catalog.db, institutions.institution_id("Stanford")) == ""
    assert institutions.find_by_ror(catalog.db, "03vek6s52") is None


def test_the_ror_id_is_kept_on_the_institution_not_read_from_the_authors(
    catalog: Catalog,
) -> None:
    _add(catalog, "2001.00001", "Noam Shazeer (Google Research ror:00njsd438)")
    research = institutions.institution_id("Google Research")
    with catalog.transaction() as db:  # the authors string no longer says it
        db.execute("UPDATE papers SET authors = 'Noam Shazeer' WHERE id = '2001.00001'")

    assert institutions.find_by_ror(catalog.db, "00njsd438") == research
    row = catalog.db.execute("SELECT ror FROM institutions WHERE id = ?", (research,)).fetchone()
    assert row[0] == "00njsd438"
    other = institutions.institution_id("Stanford")
    _add(catalog, "2001.00002", "Ada Lovelace (Stanford)")
    assert (
        catalog.db.execute("SELECT ror FROM institutions WHERE id = ?", (other,)).fetchone()[0]
        == ""
    )


def test_who_is_where_is_kept_by_byline_position_and_replaced_or_deleted_with_the_paper(
    catalog: Catalog,
) -> None:
    _add(catalog, "2001.00001", "Ann One, Bo Two, Cy Three")
    inria, fair = institutions.institution_id("Inria"), institutions.institution_id("FAIR")
    with catalog.transaction():
        catalog.replace_placements("2001.00001", [(0, "Inria"), (0, "FAIR"), (2, "FAIR")])

    assert institutions.placements_at(catalog.db, [inria], ["2001.00001", "2001.00009"]) == {
        "2001.00001": {0}
    }
    assert institutions.placements_at(catalog.db, [fair], ["2001.00001"]) == {"2001.00001": {0, 2}}
    with catalog.transaction():  # read again: new for old
        catalog.replace_placements("2001.00001", [(1, "Inria")])
    assert institutions.placements_at(catalog.db, [inria, fair], ["2001.00001"]) == {
        "2001.00001": {1}
    }
    # A paper whose page puts its authors elsewhere is known, with nobody at this one.
    other = institutions.institution_id("Elsewhere")
    assert institutions.placements_at(catalog.db, [other], ["2001.00001"]) == {"2001.00001": set()}
    with catalog.transaction():
        catalog.delete_paper("2001.00001")
    assert institutions.placements_at(catalog.db, [inria], ["2001.00001"]) == {}


def test_a_record_that_changes_the_author_list_forgets_who_is_where(catalog: Catalog) -> None:
    _add(catalog, "2001.00001", "Ann One, Bo Two, Cy Three")
    _add(catalog, "2001.00002", "Di Four, Ed Five")
    inria = institutions.institution_id("Inria")
    with catalog.transaction():
        catalog.replace_placements("2001.00001", [(0, "Inria"), (2, "Inria")])
        catalog.replace_placements("2001.00002", [(1, "Inria")])

    _add(catalog, "2001.00001", "Zoe Zero, Ann One, Bo Two, Cy Three")  # one more, first
    _add(catalog, "2001.00002", "D. Four, E. Five")  # the same people, written shorter

    # Position 0 is now Zoe Zero, whom page 1 never put at Inria: nothing is claimed.
    assert institutions.placements_at(catalog.db, [inria], ["2001.00001"]) == {}
    assert institutions.placements_at(catalog.db, [inria], ["2001.00002"]) == {"2001.00002": {1}}


def test_a_catalog_before_migration_7_gets_its_ror_ids_and_an_empty_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalog.sqlite"
    catalog = Catalog(path)
    _add(catalog, "2001.00001", "Noam Shazeer (Google Research ror:00njsd438)")
    with catalog.transaction() as db:  # as migration 6 left it
        db.execute("DROP TABLE paper_author_institutions")
        db.execute("DROP INDEX institutions_ror")
        db.execute("ALTER TABLE institutions DROP COLUMN ror")
        db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
        db.execute("UPDATE meta SET value = '2' WHERE key = 'record_affiliations'")
    catalog.close()

    reopened = Catalog(path)

    research = institutions.institution_id("Google Research")
    assert institutions.find_by_ror(reopened.db, "00njsd438") == research
    assert institutions.placements_at(reopened.db, [research], ["2001.00001"]) == {}
    reopened.close()
