"""Author names: how they are keyed, which spellings are one person, and the catalog's index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.index.catalog import Catalog
from ingest.index.names.people import compatible, parse_name, split_authors
from ingest.index.records import Paper
from tests.support.worlds.catalogs import as_released


def _paper(paper_id: str, authors: str, published: str = "2024-01-01") -> Paper:
    return Paper(
        id=paper_id, title=f"Paper {paper_id}", authors=authors, categories=("cs.CL",),
        published=published,
    )  # fmt: skip


@pytest.fixture
def catalog(catalog_location: str) -> Iterator[Catalog]:
    catalog = Catalog(catalog_location)
    papers = [
        _paper("1706.03762", "Ashish Vaswani, Noam Shazeer, Niki Parmar", "2017-06-12"),
        _paper("1803.02155", "A. Vaswani and N. Shazeer", "2018-03-06"),
        _paper("1901.00001", "Ashish K. Vaswani; Jakob Uszkoreit", "2019-01-01"),
        _paper("2001.00001", 'Noam Shazeer (Google), J\\"urgen M\\"uller', "2020-01-01"),
        _paper("2002.00002", "Jürgen Müller, Wei Wang, Wei-An Wang", "2020-02-02"),
        _paper("2003.00003", "W. Wang, Weijie Wang", "2020-03-03"),
    ]
    with catalog.transaction():
        for paper in papers:
            catalog.replace_unit(paper, "metadata", "abstract", "digest", [])
    yield catalog
    catalog.close()


def _ids(catalog: Catalog, name: str) -> list[str]:
    person = catalog.person(name)
    return sorted(catalog.paper_ids_of(person)) if person else []


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("Ashish Vaswani", "ashish vaswani"),
        ("  ASHISH   vaswani ", "ashish vaswani"),
        ("A. Vaswani", "a vaswani"),
        ("Jürgen Müller", "jurgen muller"),
        ('J\\"urgen M\\"{u}ller', "jurgen muller"),
        ("Tolúl\\d{o}pé Ògúnrèmí", "tolulope ogunremi"),
        ("{\\O}ystein Ore", "oystein ore"),
        ("Donald Johann Jr.", "donald johann"),
        ("Wei-An Wang", "weian wang"),
        ("Łukasz Kaiser", "lukasz kaiser"),
    ],
)
def test_names_are_keyed_without_case_accents_or_tex(written: str, key: str) -> None:
    name = parse_name(written)

    assert name is not None
    assert name.key == key


def test_an_authors_string_splits_on_commas_semicolons_and_and() -> None:
    authors = "Ann Lee, Bo Chen; Cy Dee and Di Eve, and Ed Fox (MIT), et al."

    names = [name.written for name in split_authors(authors)]

    assert names == ["Ann Lee", "Bo Chen", "Cy Dee", "Di Eve", "Ed Fox"]


@pytest.mark.parametrize("written", ["", "   ", "et al.", "and", "()"])
def test_what_holds_no_name_is_no_name(written: str) -> None:
    assert parse_name(written) is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("A. Vaswani", "Ashish Vaswani", True),
        ("Ashish K. Vaswani", "Ashish Vaswani", True),
        ("A. K. Vaswani", "Ashish Vaswani", True),
        ("Anil Vaswani", "Ashish Vaswani", False),
        ("Yang Janet Liu", "Yang Liu", False),
        ("Wei-An Wang", "Wei Wang", False),
        ("Ashish Vaswani", "Ashish Shazeer", False),
        ("Vaswani", "A. Vaswani", False),
    ],
)
def test_which_spellings_may_be_one_person(a: str, b: str, same: bool) -> None:
    first, second = parse_name(a), parse_name(b)
    assert first is not None
    assert second is not None

    assert compatible(first, second) is same
    assert compatible(second, first) is same


def test_an_initial_is_the_one_person_with_that_initial(catalog: Catalog) -> None:
    by_initial = _ids(catalog, "A. Vaswani")
    by_full_name = _ids(catalog, "ashish vaswani")

    assert by_initial == ["1706.03762", "1803.02155", "1901.00001"]
    assert by_full_name == by_initial


def test_accents_and_tex_name_the_same_person(catalog: Catalog) -> None:
    assert _ids(catalog, "Jurgen Muller") == ["2001.00001", "2002.00002"]
    assert _ids(catalog, "JÜRGEN MÜLLER") == ["2001.00001", "2002.00002"]


def test_an_initial_shared_by_two_people_is_only_its_own_spelling(catalog: Catalog) -> None:
    person = catalog.person("W. Wang")

    assert person is not None
    assert catalog.paper_ids_of(person) == ["2003.00003"]
    assert {n.written for n in person.ambiguous} == {"Wei Wang", "Wei-An Wang", "Weijie Wang"}
    assert _ids(catalog, "Wei Wang") == ["2002.00002"]
    assert _ids(catalog, "Wei-An Wang") == ["2002.00002"]


def test_an_unknown_author_is_nobody(catalog: Catalog) -> None:
    assert catalog.person("Nobody Here") is None
    assert catalog.person("Noam Vaswani") is None
    assert catalog.person("") is None


def test_papers_of_an_author_come_newest_first(catalog: Catalog) -> None:
    person = catalog.person("Ashish Vaswani")
    assert person is not None

    papers = catalog.papers_of(person)

    assert [p.id for p in papers] == ["1901.00001", "1803.02155", "1706.03762"]
    assert person.display == "Ashish K. Vaswani"


def test_a_changed_or_deleted_paper_leaves_the_author_index(catalog: Catalog) -> None:
    with catalog.transaction():
        catalog.replace_unit(
            _paper("1803.02155", "Noam Shazeer"), "metadata", "abstract", "digest", []
        )
        catalog.delete_paper("1901.00001")

    assert _ids(catalog, "Ashish Vaswani") == ["1706.03762"]
    assert _ids(catalog, "Noam Shazeer") == ["1706.03762", "1803.02155", "2001.00001"]


def test_a_catalog_made_before_the_author_index_gets_it_once(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    catalog = Catalog(path)
    with catalog.transaction():
        catalog.replace_unit(
            _paper("1706.03762", "Ashish Vaswani"), "metadata", "abstract", "digest", []
        )
    catalog.close()
    as_released(path, "DROP TABLE paper_authors", "DELETE FROM meta WHERE key = 'author_index'")

    reopened = Catalog(path)

    assert _ids(reopened, "A. Vaswani") == ["1706.03762"]
    assert reopened.get_meta("author_index") is not None


def test_a_pdf_read_after_a_record_leaves_the_records_authors_in_the_index(
    catalog: Catalog,
) -> None:
    # The PDF's page 1 misread the names; the record's names are the ones kept and indexed.
    with catalog.transaction():
        catalog.replace_unit(
            _paper("1706.03762", "Ashish Vaswani Google Brain"), "pdf", "fulltext", "d2", []
        )

    assert _ids(catalog, "Ashish Vaswani") == ["1706.03762", "1803.02155", "1901.00001"]
    assert _ids(catalog, "Noam Shazeer") == ["1706.03762", "1803.02155", "2001.00001"]
