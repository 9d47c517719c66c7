"""The reader's annotations world: FiD, DPR and RAG read from their real PDFs (they cite each
other), served once for every test of this folder by a real uvicorn."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import Api, serve_index
from tests.support.worlds.citations import cited_index_fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring

__all__ = ["cited_index_fixture"]


@pytest.fixture(scope="package", name="cited_web")
def cited_web_fixture(
    cited_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("cited-web-db") / "paperchat.sqlite"
    yield from serve_index(cited_index, fake_llm, database)
