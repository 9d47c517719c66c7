"""Institutions read from page 1 of real PDFs: the affiliations under the authors, set in
columns or under each name, and nothing from notices, e-mails or names."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from ingest.pdf.front.glyphs import read_lines
from ingest.pdf.front.header import read_header
from tests.support.data import PDFS


def _affiliations(name: str) -> tuple[tuple[str, str], ...]:
    document = pdfium.PdfDocument(PDFS / name)
    try:
        return read_header(read_lines(document), "", []).affiliations
    finally:
        document.close()


@pytest.mark.parametrize(
    ("name", "institutions"),
    [
        # Three columns on one line under the names.
        ("2004.04906v3.pdf", ["Facebook AI", "University of Washington", "Princeton University"]),
        # One under each name, each once; the notice above the title names Google too.
        ("1706.03762v7.pdf", ["Google Brain", "Google Research", "University of Toronto"]),
        # A legal form after a comma is part of the name.
        ("1201.3077v1.pdf", ["Google, Inc."]),
        # A parenthesised abbreviation is left out; a raised mark on the name too.
        (
            "2104.08663v4.pdf",
            ["Ubiquitous Knowledge Processing Lab", "Technische Universität Darmstadt"],
        ),
    ],
)
def test_page_one_affiliations_are_read_in_order(name: str, institutions: list[str]) -> None:
    found = _affiliations(name)

    assert [institution for institution, _ in found] == institutions
    assert all(parent == "" for _, parent in found)


def test_a_campus_stays_its_own_institution_with_its_university_as_parent() -> None:
    found = dict(_affiliations("2203.00130v1.pdf"))
    rwkv = dict(_affiliations("2305.13048v1.pdf"))

    # "MARTI A. HEARST, University of California, Berkeley, USA": the country is no campus.
    assert found["University of California, Berkeley"] == "University of California"
    assert "University of California" not in found
    assert rwkv["University of California, Santa Barbara"] == "University of California"
    assert rwkv["University of California, Santa Cruz"] == "University of California"
    assert "University of California" not in rwkv


def test_a_campus_naming_its_system_after_itself_has_the_system_as_parent() -> None:
    # "Department of Computer Science and Engineering, University at Buffalo, SUNY".
    found = dict(_affiliations("2205.14135v2.pdf"))

    assert found["University at Buffalo"] == "State University of New York"
    assert "SUNY" not in found
    assert found["Stanford University"] == ""


@pytest.mark.parametrize(
    ("name", "institutions"),
    [
        # "†Australian National University" / "?DATA61, CSIRO": a name after its mark, and
        # an acronym beside it; the digits close the name.
        ("1803.06049v1.pdf", ["Australian National University", "DATA61", "CSIRO"]),
        # "2 ENS, PSL University, Paris": an acronym beside a university; the city is none.
        ("2007.01282v2.pdf", ["Facebook AI Research", "ENS", "PSL University", "Inria"]),
        # "All authors from DeepMind, †Equal contributions, ‡Equal senior authorship".
        ("2112.04426v1.pdf", ["DeepMind"]),
    ],
)
def test_organisations_named_without_a_word_of_one(name: str, institutions: list[str]) -> None:
    assert [institution for institution, _ in _affiliations(name)] == institutions


def test_every_affiliation_mark_of_a_long_list_is_read_and_no_name_after_a_mark() -> None:
    found = [institution for institution, _ in _affiliations("2305.13048v1.pdf")]

    # Page 1 prints 27 marked affiliations ("1RWKV Foundation 2EleutherAI ... 27RuoxinTech").
    assert len(found) == 27
    assert found[:4] == [
        "RWKV Foundation",
        "EleutherAI",
        "University of Barcelona",
        "Charm Therapeutics",
    ]
    assert {"Zendesk", "Storyteller.io", "Crisis24", "Epita", "RuoxinTech"} <= set(found)
    # "Bo Peng1* Eric Alcaide2,3,4*": a mark after a name leads no affiliation.
    assert not {"Eric Alcaide", "Quentin Anthony", "Bolun Wang"} & set(found)
