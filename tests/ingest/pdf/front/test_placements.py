"""Who is where, read from page 1 of real PDFs: by the marks after names and before
affiliations (numbers, symbols, a mark set on a line of its own, digits run together), by
author blocks over their affiliation (one per name, in columns, on the name's own line),
and nothing where the page does not say."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from ingest.pdf.front.glyphs import read_lines
from ingest.pdf.front.header import read_header
from ingest.pdf.front.placements import Affiliated, authors_at
from tests.support.data import PDFS


def read(name: str) -> Affiliated | None:
    """Who is where on page 1 of the shared PDF `name`, for the authors its page 1 names."""
    document = pdfium.PdfDocument(str(PDFS / name))
    try:
        lines = read_lines(document)
    finally:
        document.close()
    authors = read_header(lines, "", ()).authors.split(", ")
    return authors_at(lines, authors)


def some(found: Affiliated | None, *authors: str) -> dict[str, tuple[str, ...] | None]:
    assert found is not None
    return {author: found.authors.get(author) for author in authors}


def test_numbered_marks_tie_each_author_to_the_affiliations_they_lead() -> None:
    found = read("2305.13048v1.pdf")

    assert found is not None
    assert found.method == "marks"
    assert some(found, "Bo Peng", "Alon Albalak", "Qihang Zhao", "Xin Cheng") == {
        "Bo Peng": ("RWKV Foundation",),
        "Alon Albalak": ("EleutherAI", "University of California, Santa Barbara"),
        "Qihang Zhao": (
            "University of Science and Technology of China",
            "Kuaishou Technology Co. Ltd",
        ),
        "Xin Cheng": ("Peking University",),
    }
    assert found.at("Peking University") == ["Xin Cheng"]
    # Organisations without a word of one, read after their mark; a campus kept distinct.
    assert found.authors["Samuel Arcadinho"] == ("EleutherAI", "Zendesk")
    assert found.authors["Ferdinand Mom"] == ("Criteo AI Lab", "Epita")
    assert found.authors["Rui-Jie Zhu"][0] == "University of California, Santa Cruz"
    assert found.at("University of California") == []


def test_a_mark_on_a_line_of_its_own_leads_the_affiliation_beside_it() -> None:
    found = read("2007.01282v2.pdf")

    assert found is not None
    assert found.authors == {
        "Gautier Izacard": ("Facebook AI Research", "ENS", "PSL University", "Inria"),
        "Edouard Grave": ("Facebook AI Research",),
    }
    assert found.at("INRIA") == ["Gautier Izacard"]


def test_marks_run_together_and_symbol_marks_are_read() -> None:
    star = read("2203.14465v1.pdf")
    suits = read("2023.eacl-main.121.pdf")

    assert star is not None
    assert star.authors["Yuhuai Wu"] == ("Stanford University", "Google Research")
    assert star.authors["Eric Zelikman"] == ("Stanford University",)
    assert some(suits, "Kalpesh Krishna", "Arman Cohan", "Kyle Lo") == {
        "Kalpesh Krishna": ("University of Massachusetts Amherst",),
        "Arman Cohan": ("Yale University", "Allen Institute for AI"),
        "Kyle Lo": ("Allen Institute for AI",),
    }


def test_an_author_block_gives_its_authors_the_affiliation_under_it() -> None:
    attention = read("1706.03762v7.pdf")
    resnet = read("1512.03385v1.pdf")

    assert attention is not None
    assert attention.method == "blocks"
    assert some(
        attention, "Ashish Vaswani", "Niki Parmar", "Aidan N. Gomez", "Illia Polosukhin"
    ) == {
        "Ashish Vaswani": ("Google Brain",),
        "Niki Parmar": ("Google Research",),
        "Aidan N. Gomez": ("University of Toronto",),
        "Illia Polosukhin": None,  # an e-mail address under the name, no affiliation
    }
    assert len(attention.authors) == 7
    assert resnet is not None
    assert set(resnet.authors.values()) == {("Microsoft Research",)}
    assert len(resnet.authors) == 4


def test_names_in_columns_take_the_affiliation_under_each() -> None:
    found = read("2302.07302v1.pdf")

    assert some(found, "Joseph Chee Chang", "Amy X. Zhang", "Andrew Head") == {
        "Joseph Chee Chang": ("Allen Institute for AI",),
        "Amy X. Zhang": ("University of Washington",),
        "Andrew Head": ("University of Pennsylvania",),
    }


def test_an_affiliation_on_the_authors_own_line_is_theirs() -> None:
    found = read("2203.00130v1.pdf")

    assert some(found, "Tal August", "Lucy Lu Wang", "Andrew Head") == {
        "Tal August": ("University of Washington",),
        "Lucy Lu Wang": ("Allen Institute for Artificial Intelligence",),
        "Andrew Head": ("University of Pennsylvania",),
    }


def test_a_team_keeps_its_organisation_beside_it() -> None:
    found = read("2010.11929v2.pdf")

    assert found is not None
    assert len(found.at("Brain Team")) == 12
    assert found.at("Google Research") == found.at("Brain Team")


@pytest.mark.parametrize(
    "name",
    [
        "2002.08909v1.pdf",  # marks, but no affiliation printed
        "1910.02054v3.pdf",  # e-mails only
    ],
)
def test_a_page_that_does_not_say_who_is_where_gives_none(name: str) -> None:
    assert read(name) is None
