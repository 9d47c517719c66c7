"""The library of papers that cite each other: Fusion-in-Decoder (FiD), which cites Dense
Passage Retrieval (DPR) and Retrieval-Augmented Generation (RAG), all three from their real
PDFs, and a few real abstracts beside them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.worlds.indexes import pdf_index

if TYPE_CHECKING:
    from chat.wiring import Wiring

FID, DPR, RAG = "2007.01282", "2004.04906", "2005.11401"
CITING_PDFS = (f"{FID}v2.pdf", f"{DPR}v3.pdf", f"{RAG}v4.pdf")
ABSTRACT_LINES = 5


def ingest_pdfs(index: Wiring, folder: Path) -> None:
    """Ingest the PDFs in `folder` into `index`, as `paperchat ingest pdfs` does."""
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import pdf_items

    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    pipeline.run(pdf_items([folder], index.catalog, embedder.count_tokens), IngestReport())


@pytest.fixture(scope="session", name="cited_index")
def cited_index_fixture(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path
) -> Iterator[Wiring]:
    index = pdf_index(
        tmp_path_factory.mktemp("cited-index"), CITING_PDFS, ABSTRACT_LINES, models_cache
    )
    yield index
    index.close()
