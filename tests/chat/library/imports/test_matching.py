"""Entries matched to a catalog's papers: by arXiv id first, then DOI, then a title only
one paper has; an entry none names is a miss that says why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chat.library.imports.entries import Entry
from chat.library.imports.matching import match_entries
from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper

PAPERS = (
    Paper(id="1706.03762", title="Attention Is All You Need", doi="10.48550/arXiv.1706.03762"),
    Paper(
        id="2112.04426",
        title="Improving language models by retrieving from trillions of tokens",
        doi="10.1234/Retro.2022",
    ),
    Paper(id="2007.01282", title="Distilling Knowledge from Reader to Retriever"),
    Paper(id="2301.00001", title="A Survey of Large Language Models"),
    Paper(id="2301.00002", title="A survey of large language models!"),
)


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    with catalog.transaction():
        for paper in PAPERS:
            chunk = Chunk(
                f"{paper.id}#abstract-0@d", paper.id, "abstract", 0, "text", "", 0, 0, paper
            )
            catalog.replace_unit(paper, "metadata", "abstract", "d", [chunk])
    yield catalog
    catalog.close()


def test_each_entry_matches_by_the_first_identifier_the_library_knows(catalog: Catalog) -> None:
    entries = [
        Entry("line 1", "Another title", arxiv_id="1706.03762", doi="10.1234/retro.2022"),
        Entry("line 9", "Retro", doi="10.1234/retro.2022"),
        Entry("line 14", "Distilling knowledge from reader to retriever."),
    ]

    matched, missed = match_entries(catalog, entries)

    assert [(m.entry.at, m.paper_id, m.how) for m in matched] == [
        ("line 1", "1706.03762", "arxiv_id"),
        ("line 9", "2112.04426", "doi"),
        ("line 14", "2007.01282", "title"),
    ]
    assert missed == []


def test_a_miss_says_why(catalog: Catalog) -> None:
    entries = [
        Entry("item 1", "Something", arxiv_id="2404.99999"),
        Entry("item 2", "A survey of large language models"),
        Entry("item 3", "Notes"),
        Entry("item 4", "A paper the library has never seen at all", doi="10.1/none"),
    ]

    matched, missed = match_entries(catalog, entries)

    assert matched == []
    assert [(m.entry.at, m.reason) for m in missed] == [
        ("item 1", "the library does not hold arXiv:2404.99999"),
        ("item 2", "several papers of the library have this title"),
        ("item 3", "it has no arXiv id, DOI or title long enough to match"),
        ("item 4", "no paper of the library has its arXiv id, DOI or title"),
    ]
