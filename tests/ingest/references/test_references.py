"""References read from real PDFs, stored in the catalog and resolved against the library."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ingest.index.catalog import Catalog
from ingest.index.records import Block, Paper, Reference
from ingest.references import read_references
from tests.support.data import PDFS
from tests.support.worlds.citations import (  # noqa: F401 - pytest fixture, used by name
    CITING_PDFS,
    DPR,
    FID,
    RAG,
    cited_index_fixture,
    ingest_pdfs,
)

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)

GENERIC = Paper(id="2401.00001", title="Deep learning")
RETRO = Paper(
    id="2112.04426", title="Improving language models by retrieving from trillions of tokens"
)


def _rows(catalog: Catalog) -> list[tuple[object, ...]]:
    return [tuple(r) for r in catalog.db.execute("SELECT * FROM paper_references ORDER BY 1, 2")]


def test_fid_references_include_dpr_and_rag_resolved_to_their_ids(cited_index: Wiring) -> None:
    references = cited_index.catalog.references_of(FID)

    resolved = {r.resolved_id: r.reference for r in references if r.resolved_id}
    assert {DPR, RAG} <= set(resolved)
    assert resolved[DPR].title == "Dense passage retrieval for open-domain question answering"
    assert resolved[DPR].year == 2020
    assert resolved[DPR].arxiv_id == DPR
    assert len(references) >= 30


def test_dpr_is_cited_by_fid_and_rag(cited_index: Wiring) -> None:
    citing = [paper.id for paper in cited_index.catalog.citing_papers(DPR)]

    assert FID in citing
    assert RAG in citing
    assert DPR not in citing


def test_reingesting_the_pdfs_keeps_the_same_references(
    cited_index: Wiring, tmp_path: Path
) -> None:
    before = _rows(cited_index.catalog)
    for name in CITING_PDFS:
        shutil.copy(PDFS / name, tmp_path / name)

    ingest_pdfs(cited_index, tmp_path)

    after = _rows(cited_index.catalog)
    assert after == before
    assert len({row[:2] for row in after}) == len(after)


@pytest.mark.parametrize(
    "text",
    ["", "\x00\x01 \ufffd\ufffd", "Input-Input Attention Visualizations Layer5", "12 34\n56 78"],
)
def test_an_empty_or_garbled_references_section_gives_no_references(text: str) -> None:
    blocks = [Block("References", 9, text, is_references=True)]

    assert read_references(blocks) == ()


def test_a_paper_added_later_is_found_by_the_references_made_to_it(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    cited = Reference(title=RETRO.title.capitalize() + ".", year=2021)
    with catalog.transaction():
        catalog.replace_unit(GENERIC, "metadata", "abstract", "d1", [])
        catalog.replace_references(GENERIC.id, [cited])
    before = catalog.references_of(GENERIC.id)

    with catalog.transaction():
        catalog.replace_unit(RETRO, "metadata", "abstract", "d2", [])

    assert [r.resolved_id for r in before] == [None]
    assert [r.resolved_id for r in catalog.references_of(GENERIC.id)] == [RETRO.id]
    assert [p.id for p in catalog.citing_papers(RETRO.id)] == [GENERIC.id]


def test_short_generic_or_shared_titles_resolve_to_no_paper(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    twin = Paper(id="2401.00002", title=RETRO.title.upper())
    with catalog.transaction():
        for paper in (GENERIC, RETRO, twin):
            catalog.replace_unit(paper, "metadata", "abstract", paper.id, [])
        catalog.replace_references(
            "2401.00009", [Reference(title="Deep learning"), Reference(title=RETRO.title)]
        )

    resolved = [r.resolved_id for r in catalog.references_of("2401.00009")]

    assert resolved == [None, None]


def test_a_deleted_paper_is_no_longer_cited_and_its_references_go(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    with catalog.transaction():
        for paper in (GENERIC, RETRO):
            catalog.replace_unit(paper, "metadata", "abstract", paper.id, [])
        catalog.replace_references(GENERIC.id, [Reference(title="x y z", arxiv_id=RETRO.id)])
        catalog.replace_references(RETRO.id, [Reference(title="x y z", arxiv_id=GENERIC.id)])

    with catalog.transaction():
        catalog.delete_paper(RETRO.id)

    assert [r.resolved_id for r in catalog.references_of(GENERIC.id)] == [None]
    assert catalog.references_of(RETRO.id) == []
    assert catalog.citing_papers(GENERIC.id) == []
