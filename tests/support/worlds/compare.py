"""The comparison's world: an index of two real PDFs (DPR and Fusion-in-Decoder) and a few
real abstracts, served on a real uvicorn twice: without a model (quoting) and with the fake
OpenAI-compatible upstream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import Api, serve_index
from tests.support.worlds.indexes import pdf_index

if TYPE_CHECKING:
    from chat.wiring import Wiring

DPR = "2004.04906"  # Dense Passage Retrieval: evaluated on Natural Questions and four more
FID = "2007.01282"  # Fusion-in-Decoder
COMPARED_PDFS = (f"{DPR}v3.pdf", f"{FID}v2.pdf")
ABSTRACT_LINES = 6


@pytest.fixture(scope="session", name="compare_index")
def compare_index_fixture(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path
) -> Iterator[Wiring]:
    index = pdf_index(
        tmp_path_factory.mktemp("compare-index"), COMPARED_PDFS, ABSTRACT_LINES, models_cache
    )
    yield index
    index.close()


@pytest.fixture(scope="session", name="compare_api")
def compare_api_fixture(
    compare_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    """The app with no model: cells are quoted from the papers."""
    database = tmp_path_factory.mktemp("compare-db") / "paperchat.sqlite"
    yield from serve_index(compare_index, fake_llm, database, llm="extractive")


@pytest.fixture(scope="session", name="compare_model_api")
def compare_model_api_fixture(
    compare_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    """The app answering each cell with the fake model."""
    database = tmp_path_factory.mktemp("compare-llm-db") / "paperchat.sqlite"
    yield from serve_index(compare_index, fake_llm, database, llm="openai")


__all__ = [
    "DPR",
    "FID",
    "compare_api_fixture",
    "compare_index_fixture",
    "compare_model_api_fixture",
]
