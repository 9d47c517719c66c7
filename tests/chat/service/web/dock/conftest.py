"""The namesakes' world: the thirteen real papers of the shared metadata that call their
method MUSE, and a few other real abstracts, served without a model (answers quote the
papers)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fakes.openai import FakeOpenAI
from tests.support.data import ABSTRACTS
from tests.support.running.server import Api, serve_index

if TYPE_CHECKING:
    from chat.wiring import Wiring

NAME = "MUSE"
OTHER_LINES = 6  # the first abstracts of the file, none of them a MUSE


def _is_namesake(line: str) -> bool:
    title = " ".join(json.loads(line)["title"].split())
    return title.startswith(f"{NAME}:")


def _namesakes_file(path: Path) -> Path:
    """The papers titled "MUSE: ..." and the first `OTHER_LINES` records, as a metadata file."""
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as source:
        kept = [
            line for number, line in enumerate(source) if number < OTHER_LINES or _is_namesake(line)
        ]
    path.write_text("".join(kept), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def namesake_index(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path
) -> Iterator[Wiring]:
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items

    root = tmp_path_factory.mktemp("namesake-index")
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    records = _namesakes_file(root / "abstracts.jsonl")
    pipeline.run(metadata_items(records, embedder.count_tokens), IngestReport())
    yield index
    index.close()


@pytest.fixture(scope="session")
def namesake_api(
    namesake_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("namesake-db") / "paperchat.sqlite"
    yield from serve_index(namesake_index, fake_llm, database, llm="extractive")
