"""Small indexes of real papers for tests: a few of the shared PDFs and the first abstracts
of the shared metadata file, ingested as `paperchat ingest` does."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.data import ABSTRACTS, PDFS

if TYPE_CHECKING:
    from chat.wiring import Wiring


def pdf_index(
    root: Path, pdf_names: Sequence[str], abstract_lines: int, models_cache: Path
) -> Wiring:
    """An index in `root/data` of the shared PDFs `pdf_names` and the first
    `abstract_lines` records of the shared metadata file (its abstracts first)."""
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items, pdf_items

    pdfs = root / "pdfs"
    pdfs.mkdir()
    for name in pdf_names:
        shutil.copy(PDFS / name, pdfs / name)
    abstracts = root / "abstracts.jsonl"
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as source:
        abstracts.write_text("".join(next(source) for _ in range(abstract_lines)), "utf-8")
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    pipeline.run(metadata_items(abstracts, embedder.count_tokens), IngestReport())
    pipeline.run(pdf_items([pdfs], index.open_catalog(), embedder.count_tokens), IngestReport())
    return index
