"""The app's startup: what it loads before the first question comes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from chat.rag.records import titles
from chat.rag.retrieval.retriever import Retriever
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.wiring import Wiring
from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    fake_llm_fixture,
    fresh_upstream_fixture,
    served_settings,
)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


def _app(index: Wiring, fake: FakeOpenAI, folder: Path) -> FastAPI:
    settings = served_settings(index, fake, folder / "db.sqlite")
    prepare_service(settings)
    return create_app(settings)


@pytest.fixture(name="title_reads")
def title_reads_fixture(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many titles each reading of a catalog's titles read, in order."""
    reads: list[int] = []
    read = titles.Titles.__post_init__

    def counted(self: titles.Titles) -> None:
        reads.append(len(self.titles))
        read(self)

    monkeypatch.setattr(titles.Titles, "__post_init__", counted)
    return reads


def test_the_first_retrieval_after_startup_reads_no_titles(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path, title_reads: list[int]
) -> None:
    app = _app(small_index, fake_llm, tmp_path)

    with TestClient(app):
        read_at_startup = list(title_reads)
        retrieved = app.state.services.index.answerer.retriever.retrieve(FID)

    assert read_at_startup == [small_index.catalog.paper_count()]
    assert title_reads == read_at_startup
    assert retrieved.sources


def test_a_failing_warm_up_retrieval_is_logged_and_the_app_serves_on(
    small_index: Wiring,
    fake_llm: FakeOpenAI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise OSError("the vector index cannot be read")

    monkeypatch.setattr(Retriever, "retrieve", broken)
    app = _app(small_index, fake_llm, tmp_path)

    with TestClient(app) as client:
        health = client.get("/api/health")

    assert health.status_code == 200
    failures = [r for r in caplog.records if r.getMessage() == "the warm-up retrieval failed"]
    assert len(failures) == 1
    assert "the vector index cannot be read" in (failures[0].exc_text or "")
