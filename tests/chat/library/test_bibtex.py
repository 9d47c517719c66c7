"""BibTeX entries, read back by pybtex (a BibTeX-compatible parser) to prove they parse."""

from __future__ import annotations

import calendar
import re
from typing import Any

import pytest
from pybtex.database import BibliographyData, parse_string

from chat.library.bibtex import (
    MAX_FILE_NAME_CHARS,
    MAX_KEY_CHARS,
    base_key,
    bibliography,
    content_disposition,
    entry,
    escape,
    split_authors,
    unique_keys,
)
from chat.library.papers import paper_record
from ingest.index.records import Paper
from ingest.sources.metadata import read_metadata
from tests.support.data import ABSTRACTS

ATTENTION: dict[str, Any] = {
    "id": "1706.03762",
    "title": "Attention Is All You Need",
    "authors": "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit and Llion Jones",
    "published": "2017-06-12",
    "categories": ["cs.CL", "cs.LG"],
    "url": "https://arxiv.org/abs/1706.03762",
}


_MONTH_NAMES = list(calendar.month_name)[1:]


def parsed(text: str) -> BibliographyData:
    return parse_string(text, "bibtex")


def test_an_arxiv_entry_carries_the_eprint_fields() -> None:
    text = bibliography([ATTENTION])

    data = parsed(text)
    (key,) = data.entries
    fields = data.entries[key].fields
    assert key == "vaswani2017attention"
    assert data.entries[key].type == "misc"
    assert fields["eprint"] == "1706.03762"
    assert fields["archivePrefix"] == "arXiv"
    assert fields["primaryClass"] == "cs.CL"
    assert fields["url"] == "https://arxiv.org/abs/1706.03762"
    assert fields["title"] == "Attention Is All You Need"
    assert fields["year"] == "2017"
    assert fields["month"] == "June"
    authors = data.entries[key].persons["author"]
    assert [p.last_names for p in authors] == [
        ["Vaswani"],
        ["Shazeer"],
        ["Parmar"],
        ["Uszkoreit"],
        ["Jones"],
    ]


def test_an_old_style_id_and_a_document_without_an_arxiv_id() -> None:
    old = {**ATTENTION, "id": "hep-th/9901001", "url": "https://arxiv.org/abs/hep-th/9901001"}
    document = {**ATTENTION, "id": "0123456789abcdef", "url": None, "categories": []}

    data = parsed(bibliography([old, document]))

    first, second = data.entries.values()
    assert first.fields["eprint"] == "hep-th/9901001"
    assert "eprint" not in second.fields
    assert "archivePrefix" not in second.fields
    assert second.fields["note"] == "paperchat document 0123456789abcdef"


@pytest.mark.parametrize(
    "title",
    [
        "Hack}, author = {evil",
        "}}}} @misc{injected, title={x}",
        "Costs 100% of $5 & #1 with a_b ~ c^d \\ e",
        "Unclosed {brace and \\textbf{command",
        "Two\nlines\r\nand a tab\there",
        "Zero\u200bwidth and \x00 control",
    ],
)
def test_tex_special_characters_cannot_break_the_file(title: str) -> None:
    paper = {**ATTENTION, "title": title, "authors": "Eve {Mallory}, Bob \\& Alice"}

    text = entry(paper, "key")

    data = parsed(text)
    assert list(data.entries) == ["key"]
    fields = data.entries["key"].fields
    assert set(fields) == {"title", "year", "month", "eprint", "archivePrefix",
                           "primaryClass", "url"}  # fmt: skip
    assert len(data.entries["key"].persons["author"]) == 2
    assert fields["eprint"] == "1706.03762"
    assert "\n" not in fields["title"]
    assert "\x00" not in text


def test_tex_in_titles_becomes_readable_text() -> None:
    assert (
        escape("$\\alpha$-stable laws in $O(n)$")
        == "\N{GREEK SMALL LETTER ALPHA}-stable laws in O(n)"
    )
    assert escape("Caf\\'e & co") == "Café \\& co"


def test_keys_stay_short_and_plain_whatever_the_record_holds() -> None:
    hostile = {**ATTENTION, "authors": "Ann " + "Ö" * 200_000, "title": "Zz" * 100_000}
    papers = [hostile] * 40

    keys = unique_keys(papers)

    assert keys[0] == "o" * 24 + "2017" + "zz" * 12
    assert max(len(key) for key in keys) <= MAX_KEY_CHARS
    assert all(re.fullmatch("[a-z0-9]+", key) for key in keys)
    assert list(parsed(bibliography(papers)).entries) == keys


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        ("vaswani2017attention", "vaswani2017attention.bib"),
        ('a"b\r\nSet-Cookie: x=1', "a-b-Set-Cookie-x-1.bib"),
        ("../../etc/passwd", "etc-passwd.bib"),
        ("深度", "paperchat.bib"),
        ("k" * 200_000, "k" * (MAX_FILE_NAME_CHARS - 4) + ".bib"),
    ],
)
def test_a_download_name_is_short_and_safe_whatever_it_is_made_of(stem: str, name: str) -> None:
    header = content_disposition(stem)

    assert header == f'inline; filename="{name}"'
    assert len(name) <= MAX_FILE_NAME_CHARS


@pytest.mark.parametrize(
    ("paper", "key"),
    [
        (ATTENTION, "vaswani2017attention"),
        ({**ATTENTION, "authors": "J\\\"urgen Schmidhuber", "title": "On X"}, "schmidhuber2017x"),
        ({**ATTENTION, "authors": "Łukasz Kaiser", "title": "A Model"}, "kaiser2017model"),
        ({**ATTENTION, "authors": "", "title": "The"}, "anon2017"),
        # No date in the record: the year its arXiv id encodes (1706: June 2017).
        ({**ATTENTION, "published": None}, "vaswani2017attention"),
        ({**ATTENTION, "published": None, "id": "a1b2", "url": None}, "vaswaniattention"),
        ({**ATTENTION, "authors": "李 王", "title": "深度 学习"}, "anon2017"),
    ],
)  # fmt: skip
def test_keys_are_plain_ascii_author_year_word(paper: dict[str, Any], key: str) -> None:
    assert base_key(paper) == key


def test_keys_are_unique_within_a_file_and_stable() -> None:
    papers = [ATTENTION, {**ATTENTION, "id": "1706.99999"}, ATTENTION]

    keys = unique_keys(papers)

    assert keys == ["vaswani2017attention", "vaswani2017attentionb", "vaswani2017attentionc"]
    assert unique_keys(papers) == keys
    assert list(parsed(bibliography(papers)).entries) == keys


@pytest.mark.parametrize(
    ("authors", "names"),
    [
        ("A. One, B. Two, and C. Three", ["A. One", "B. Two", "C. Three"]),
        ("A. One and B. Two", ["A. One", "B. Two"]),
        ("A. One (MIT), B. Two (Univ. of X (Paris))", ["A. One", "B. Two"]),
        ("A. One, B. Two et al.", ["A. One", "B. Two"]),
        ("A. One, others", ["A. One"]),
        ("John Smith, Jr., Ann Lee", ["Smith, Jr., John", "Ann Lee"]),
        ("Ann Others", ["Ann Others"]),
        ("", []),
    ],
)
def test_arxiv_author_strings_become_names(authors: str, names: list[str]) -> None:
    assert split_authors(authors) == names


def test_a_suffix_is_read_by_bibtex_as_a_suffix() -> None:
    paper = {**ATTENTION, "authors": "John Smith, Jr."}

    person = parsed(entry(paper, "k")).entries["k"].persons["author"][0]

    assert person.last_names == ["Smith"]
    assert person.lineage_names == ["Jr."]
    assert person.first_names == ["John"]


def _plain(tex: str) -> str:
    """TeX without its grouping and escapes: what a field says, however it is protected (a
    line break, `\\\\`, reads as the space around it)."""
    return " ".join(re.sub(r"[{}\\]", "", tex).split())


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_paper_of_the_corpus_has_an_entry_bibtex_reads_back() -> None:
    papers = [paper_record(p) for p in read_metadata(ABSTRACTS) if isinstance(p, Paper)]

    data = parsed(bibliography(papers))

    assert len(papers) == len(data.entries) == 74728
    for paper, (key, read) in zip(papers, data.entries.items(), strict=True):
        fields = read.fields
        year = paper["published"][:4]
        assert key.startswith(base_key(paper)), paper["id"]
        assert year in key, paper["id"]
        assert fields["year"] == year, paper["id"]
        assert _MONTH_NAMES.index(fields["month"]) + 1 == int(paper["published"][5:7])
        assert fields["eprint"] == paper["id"]
        assert fields["archivePrefix"] == "arXiv"
        assert fields["primaryClass"] == paper["categories"][0]
        assert fields["url"] == f"https://arxiv.org/abs/{paper['id']}"
        assert _plain(fields["title"]) == _plain(paper["title"]), paper["id"]


@pytest.mark.parametrize(
    ("title", "field"),
    [
        ("Attention in $O(n^2)$ time", "Attention in {$O(n^2)$} time"),
        ("Q&A at 80% less cost: #1 on Sub_tasks", r"Q\&A at 80\% less cost: \#1 on Sub\_tasks"),
        ('Sch\\"olkopf meets {GANs}', 'Sch\\"olkopf meets {GANs}'),
        ("BERT and FiD for GPT-4", "{BERT} and {FiD} for {GPT-4}"),
        ("Wan-I2V with $500 of compute", r"{Wan-I2V} with \$500 of compute"),
        ("An unbalanced } brace", r"An unbalanced \textbraceright{} brace"),
    ],
)
def test_a_title_keeps_its_tex_and_its_capitals(title: str, field: str) -> None:
    text = entry({**ATTENTION, "title": title}, "key")

    read = parsed(text).entries["key"].fields["title"]
    assert read == field


def test_the_record_s_doi_and_journal_reference_are_fields() -> None:
    paper = {**ATTENTION, "doi": "10.1103/PhysRevD.76.013009", "journal_ref": "Phys.Rev.D76"}

    fields = parsed(entry(paper, "key")).entries["key"].fields

    assert fields["doi"] == "10.1103/PhysRevD.76.013009"
    assert fields["journal"] == "Phys.Rev.D76"
