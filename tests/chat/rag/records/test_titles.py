"""The catalog's titles in memory: the same papers as the catalog's SQL finds, and a paper
just written found at once, whether the titles are read again or the SQL is asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.rag.records import titles
from chat.rag.records.questions import _by_title, _title_row, paper_titled
from chat.rag.records.titles import title_head_paper, titles_of
from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper

PAPERS = [
    ("1706.03762", "2017-06-12", "Attention Is All You Need"),
    ("1502.03167", "2015-02-11", "Batch Normalization: Accelerating Deep Network Training"),
    ("2001.00001", "2020-01-01", "Batch Normalization: A Later Paper of the Same Head"),
    ("2002.00002", "2020-02-02", "Über Große Sprachmodelle im Test"),
]


def _write(catalog: Catalog, paper_id: str, published: str, title: str) -> None:
    paper = Paper(id=paper_id, title=title, abstract="An abstract.", authors="A. Author",
                  published=published)  # fmt: skip
    chunk = Chunk(f"{paper_id}#a0", paper_id, "abstract", 0, "An abstract.", "", 0, 0, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", paper_id, [chunk])


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    for paper in PAPERS:
        _write(catalog, *paper)
    return catalog


def test_the_lookups_find_what_the_catalog_holds(catalog: Catalog) -> None:
    held = titles_of(catalog)

    assert held is not None
    assert paper_titled("What is new in Attention Is All You Need?", catalog) == "1706.03762"
    assert paper_titled("what is new in attention is all you need?", catalog) is None
    assert _by_title("what is new in attention is all you need?", catalog) == "1706.03762"
    assert _title_row(catalog, " ATTENTION is all you need ") == "1706.03762"
    assert title_head_paper("batch normalization", catalog) == "1502.03167"
    assert _title_row(catalog, "über große sprachmodelle im test") is None, (
        "SQLite's lower() leaves Ü and ß as they are, and so do the titles in memory"
    )


def test_a_paper_written_after_the_titles_were_read_is_found_at_once(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = "Who wrote Retrieval Makes Language Models Cite Better?"
    before = paper_titled(asked, catalog)
    _write(catalog, "2403.00003", "2024-03-03", "Retrieval Makes Language Models Cite Better")

    soon = titles_of(catalog), paper_titled(asked, catalog)
    monkeypatch.setattr(titles, "REREAD_S", 0.0)
    read_again = titles_of(catalog), paper_titled(asked, catalog)

    assert before is None
    assert soon == (None, "2403.00003"), "within REREAD_S the catalog's SQL is asked"
    assert read_again[0] is not None
    assert read_again[1] == "2403.00003"
