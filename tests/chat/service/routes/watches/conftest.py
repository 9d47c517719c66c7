"""A served index of its own, which the tests add papers to: the first records of the OAI
snapshot sample, served as `paperchat serve` does, with a database of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
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
# A question the first records do not answer, and the later record that does.
DIPOLES = "How do errors of the discrete dipole approximation depend on the dipole size?"
DIPOLES_PAPER = "0704.0033"
# A question the first records answer (0704.0001), and a record far from either.
PHOTONS = "How are massive photon pairs produced at hadron colliders?"
UNRELATED_PAPER = "0704.0058"


def records() -> dict[str, dict[str, Any]]:
    with OAI_SAMPLE.open(encoding="utf-8") as lines:
        found = [json.loads(line) for line in lines if line.strip()]
    return {r["id"]: r for r in found}


def first_records() -> list[dict[str, Any]]:
    return list(records().values())[:FIRST]


def write_records(path: Path, chosen: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    return path


@dataclass
class WatchServer:
    api: Api
    settings: Settings
    models_cache: Path

    def ingest(self, folder: Path, chosen: list[dict[str, Any]]) -> None:
        """Add `chosen` with a separate `paperchat ingest`, as an operator would."""
        env = environment(self.settings.data_dir, self.models_cache)
        done = run(env, "ingest", "abstracts", str(write_records(folder / "new.jsonl", chosen)))
        assert done.code == 0, done.stderr


@pytest.fixture(scope="module")
def watch_server(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path, fake_llm: FakeOpenAI
) -> Iterator[WatchServer]:
    root = tmp_path_factory.mktemp("watches")
    first = write_records(root / "first.jsonl", first_records())
    built = run(environment(root / "data", models_cache), "ingest", "abstracts", str(first))
    assert built.code == 0, built.stderr
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    settings = served_settings(index, fake_llm, root / "db.sqlite")
    with serving_directory(settings.chroma_path, root / "chroma.log") as vectors:
        settings = settings.model_copy(update={"chroma_url": vectors.url})
        prepare_service(settings)
        app = create_app(settings)
        with serving(app, unused_port()) as base_url:
            yield WatchServer(Api(base_url, app, fake_llm), settings, models_cache)


def save(client: httpx.Client, question: str, **scope: Any) -> dict[str, Any]:
    response = client.post("/api/watches", json={"question": question, **scope})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def news_of(client: httpx.Client, watch_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/api/watches/{watch_id}")
    assert response.status_code == 200, response.text
    news: list[dict[str, Any]] = response.json()["news"]
    return news
