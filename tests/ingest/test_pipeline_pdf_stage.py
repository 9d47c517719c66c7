"""A newer PDF stage parses again only the papers an older one read, and resumes when stopped."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import ingest.sources.units as units
from ingest import chunking
from ingest.chunking import Piece
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Block
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import Indexer
from ingest.pdf import PDF_STAGE_VERSION
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport
from tests.support.data import PDFS
from tests.support.worlds.vectors import unit_vectors

pytestmark = pytest.mark.timeout(600)

FILES = [PDFS / name for name in ("2304.02623v1.pdf", "1503.02531v1.pdf", "2007.01282v2.pdf")]


class Stopped(Exception):
    """The run was stopped part way."""


@dataclass
class Embedder:
    """Unit vectors; counts the texts it embeds and may stop the run at its n-th call."""

    stop_at_call: int | None = None
    calls: int = 0
    texts: list[str] = field(default_factory=list)

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.stop_at_call:
            raise Stopped
        self.texts.extend(texts)
        return unit_vectors(len(texts))


@dataclass
class Index:
    root: Path
    count_tokens: Callable[[str], int]

    def run(self, embed: Embedder) -> IngestReport:
        catalog = Catalog(self.root / "catalog.sqlite")
        store = ChunkStore(open_chroma(self.root / "chroma"), "m")
        indexer = Indexer(catalog, store, LexicalIndex(self.root / "lexical"))
        pipeline = Pipeline(catalog, indexer, embed, NoProgress(), batch_chunks=8)
        try:
            items = units.pdf_items(FILES, catalog, self.count_tokens)
            return pipeline.run(items, IngestReport())
        finally:
            catalog.close()

    def execute(self, statement: str) -> None:
        """Change the catalog behind the pipeline's back, as an older version left it."""
        db = sqlite3.connect(self.root / "catalog.sqlite")
        try:
            with db:
                db.execute(statement)
        finally:
            db.close()

    def stages(self) -> dict[str, str]:
        db = sqlite3.connect(self.root / "catalog.sqlite")
        try:
            return dict(db.execute("SELECT id, pdf_stage FROM papers").fetchall())
        finally:
            db.close()

    def chunk_ids(self) -> tuple[set[str], set[str], set[str]]:
        """The chunk ids in the catalog, in Chroma and in the lexical index."""
        db = sqlite3.connect(self.root / "catalog.sqlite")
        try:
            in_catalog = {r[0] for r in db.execute("SELECT id FROM chunks")}
        finally:
            db.close()
        store = ChunkStore(open_chroma(self.root / "chroma"), None)
        in_chroma = set(store.collection.get(include=[])["ids"])
        return in_catalog, in_chroma, LexicalIndex(self.root / "lexical").chunk_ids()


@pytest.fixture
def index(tmp_path: Path, count_tokens: Callable[[str], int]) -> Index:
    return Index(tmp_path, count_tokens)


def _newer_text(monkeypatch: pytest.MonkeyPatch) -> str:
    """The newer stage reads every PDF to a different text; its version."""
    pieces = chunking.fulltext_pieces

    def changed(blocks: Sequence[Block], count_tokens: Callable[[str], int]) -> list[Piece]:
        return [*pieces(blocks, count_tokens), Piece("read by the newer stage", "End", 1, 1)]

    monkeypatch.setattr(units, "fulltext_pieces", changed)
    newer = str(int(PDF_STAGE_VERSION) + 1)
    monkeypatch.setattr(units, "PDF_STAGE", newer)
    return newer


def test_pdfs_read_by_this_stage_are_not_parsed_again(index: Index) -> None:
    index.run(Embedder())
    embed = Embedder()

    report = index.run(embed)

    assert report.unchanged_papers == 3
    assert report.pages_parsed == 0
    assert embed.texts == []


def test_a_newer_stage_parses_again_only_the_papers_an_older_one_read(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(units, "PDF_STAGE", "1")
    index.run(Embedder())
    monkeypatch.setattr(units, "PDF_STAGE", "2")
    index.run(Embedder())
    index.execute("UPDATE papers SET pdf_stage = '1' WHERE id = '1503.02531'")
    embed = Embedder()

    report = index.run(embed)

    assert report.pages_parsed == 9  # the one paper the older stage read, and only it
    assert report.unchanged_papers == 3
    assert embed.texts == []  # its text came out the same: nothing embedded again
    assert set(index.stages().values()) == {"2"}


def test_an_upgrade_stopped_part_way_is_finished_by_the_next_run(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    index.run(Embedder())
    before, _, _ = index.chunk_ids()
    newer = _newer_text(monkeypatch)

    with pytest.raises(Stopped):
        index.run(Embedder(stop_at_call=2))
    halfway = index.stages()
    embed = Embedder()
    report = index.run(embed)

    done_first = [paper for paper, stage in halfway.items() if stage == newer]
    assert 1 <= len(done_first) < 3
    assert report.unchanged_papers == len(done_first)
    assert report.updated_papers == 3 - len(done_first)
    assert set(index.stages().values()) == {newer}
    assert embed.texts.count("read by the newer stage") == 3 - len(done_first)
    in_catalog, in_chroma, in_lexical = index.chunk_ids()
    assert in_catalog == in_chroma == in_lexical
    assert not in_catalog & before  # every old chunk replaced in all three stores


def test_a_newer_stage_reads_page_1_again_though_the_text_came_out_the_same(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An older stage read page 1's abstract badly ("We propose Attention" for FlashAttention).
    monkeypatch.setattr(units, "PDF_STAGE", "1")
    index.run(Embedder())
    index.execute("UPDATE papers SET abstract = 'misread' WHERE id = '1503.02531'")
    monkeypatch.setattr(units, "PDF_STAGE", "2")
    embed = Embedder()

    report = index.run(embed)

    catalog = Catalog(index.root / "catalog.sqlite")
    try:
        paper = catalog.get_paper("1503.02531")
        sources = catalog.paper_row("1503.02531")
    finally:
        catalog.close()
    assert report.unchanged_papers == 3
    assert embed.texts == []
    assert paper is not None
    assert sources is not None
    assert paper.abstract.startswith("A very simple way to improve the performance")
    assert sources.field_sources["abstract"] == "pdf"
