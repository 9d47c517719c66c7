"""The three readers on exports as reference managers write them: each entry's title made
readable, its arXiv id and DOI found wherever the manager put them, and a broken entry
listed by its line or position while the others are kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.library.imports.bibtex_reader import read_bibtex
from chat.library.imports.entries import MAX_ENTRIES, Entry, Unreadable, UnreadableFile
from chat.library.imports.formats import read_library

DATA = Path(__file__).parent / "data"
PQ = "Product Quantization for Nearest Neighbor Search"
PQ_DOI = "10.1109/tpami.2010.57"


def test_a_zotero_bibtex_export_is_read_with_its_tex_accents_and_arxiv_ids() -> None:
    text = (DATA / "zotero.bib").read_text(encoding="utf-8")

    reading = read_library(text)

    assert reading.format == "bibtex"
    assert reading.unreadable == []
    assert reading.entries == [
        Entry("line 2", "Attention Is All You Need", "1706.03762", "10.48550/arxiv.1706.03762"),
        Entry(
            "line 17", "Distilling Knowledge from Reader to Retriever for Question Answering",
            "2007.01282", "",
        ),
        Entry("line 24", PQ, "", PQ_DOI),
        Entry("line 34", "Grundlagen der Schrödinger-Gleichung für Anfänger", "", ""),
    ]  # fmt: skip


def test_a_zotero_csl_json_export_keeps_its_good_items_and_names_the_bad_by_position() -> None:
    text = (DATA / "zotero.json").read_text(encoding="utf-8")

    reading = read_library(text)

    assert reading.format == "csl-json"
    assert [(e.at, e.arxiv_id, e.doi) for e in reading.entries] == [
        ("item 1", "1706.03762", "10.48550/arxiv.1706.03762"),
        ("item 2", "", "10.1109/tpami.2010.57"),
        ("item 5", "2007.01282", ""),
    ]
    assert reading.unreadable == [
        Unreadable("item 3", "an item is a JSON object"),
        Unreadable("item 4", "its 'title' is not text"),
    ]


def test_an_ris_export_joins_wrapped_lines_and_lists_an_entry_without_its_end() -> None:
    text = (DATA / "mendeley.ris").read_text(encoding="utf-8")

    reading = read_library(text)

    assert reading.format == "ris"
    assert reading.entries == [
        Entry("line 1", PQ, "", PQ_DOI),
        Entry(
            "line 13", "Distilling Knowledge from Reader to Retriever for Question Answering",
            "2007.01282", "",
        ),
        Entry("line 25", "Attention Is All You Need", "1706.03762", "10.48550/arxiv.1706.03762"),
    ]  # fmt: skip
    assert reading.unreadable == [Unreadable("line 21", "it has no ER line")]


def test_strings_quotes_concatenation_and_comments_are_read_as_bibtex_reads_them() -> None:
    text = """Text before entries is a comment.
@String{conf = "Proc. of "}
@comment{a {nested} comment with an @article{inside, title={no}}}
@preamble{"\\newcommand{\\noop}[1]{}"}
@InProceedings(key2,
  TITLE = "A {\\em quoted} title, with {"}braces{"}",
  Journal = conf # "NeurIPS",
  eprint = "2203.12533v2", archivePrefix = "arXiv")
"""

    reading = read_bibtex(text)

    assert reading.unreadable == []
    assert reading.entries == [
        Entry("line 5", 'A quoted title, with "braces"', "2203.12533", ""),
    ]


def test_an_unbalanced_brace_loses_its_entry_only_and_names_its_line() -> None:
    text = """@article{one, title = {First {paper}}
@article{two, title = {Second {paper}, never closed
@article{three, title = {Third paper}}
"""

    reading = read_bibtex(text)

    assert [e.title for e in reading.entries] == ["Third paper"]
    assert [u.at for u in reading.unreadable] == ["line 1", "line 2"]
    assert reading.unreadable[1].reason == "a brace opened on line 2 is never closed"


def test_binary_garbage_is_no_format() -> None:
    garbage = bytes(range(256)).decode("latin-1") * 8

    with pytest.raises(UnreadableFile, match="binary"):
        read_library(garbage)


@pytest.mark.parametrize(
    "entry",
    [
        "@misc{k, title={T}}\n",
        "TY  - GEN\nTI  - T\nER  - \n",
    ],
)
def test_a_hundred_thousand_entries_are_refused(entry: str) -> None:
    text = entry * 100_000

    with pytest.raises(UnreadableFile, match=f"at most {MAX_ENTRIES} entries"):
        read_library(text)


def test_a_csl_json_list_longer_than_allowed_is_refused() -> None:
    text = "[" + ",".join(['{"title": "T"}'] * (MAX_ENTRIES + 1)) + "]"

    with pytest.raises(UnreadableFile, match=f"at most {MAX_ENTRIES} entries"):
        read_library(text)


def test_text_of_no_format_is_refused() -> None:
    with pytest.raises(UnreadableFile, match="not BibTeX, CSL-JSON or RIS"):
        read_library("just some notes\nabout papers\n")
