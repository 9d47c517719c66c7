"""A served index of its own, which the tests add papers to: the first records of the OAI
snapshot sample, served with a database of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.vectors.server import serving_directory
from tests.fakes.openai import FakeOpenAI
from tests.support.data import OAI_SAMPLE
from tests.support.running.cli import environment, run
from tests.support.running.net import serving, unused_port
from tests.support.running.server import Api, fake_llm_fixture, served_settings  # noqa: F401

# The records the index starts with; tests add later ones of the sample.
FIRST = 20


def sample_records() -> list[dict[str, Any]]:
    with OAI_SAMPLE.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@dataclass
class FollowsServer:
    api: Api
    settings: Settings


@pytest.fixture(scope="module")
def follows_server(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path, fake_llm: FakeOpenAI
) -> Iterator[FollowsServer]:
    root = tmp_path_factory.mktemp("follows")
    first = write_records(root / "first.jsonl", sample_records()[:FIRST])
    built = run(environment(root / "data", models_cache), "ingest", "abstracts", str(first))
    assert built.code == 0, built.stderr
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    settings = served_settings(index, fake_llm, root / "db.sqlite")
    # As `paperchat serve` does: the vectors served by a Chroma server of the serving
    # process's own, through which an ingest beside it writes.
    with serving_directory(settings.chroma_path, root / "chroma.log") as vectors:
        settings = settings.model_copy(update={"chroma_url": vectors.url})
        prepare_service(settings)
        app = create_app(settings)
        with serving(app, unused_port()) as base_url:
            yield FollowsServer(Api(base_url, app, fake_llm), settings)
