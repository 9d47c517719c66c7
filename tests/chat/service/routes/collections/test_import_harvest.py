"""`POST /api/collections/import` with `PAPERCHAT_IMPORT_HARVEST`: the file's arXiv papers
the library does not hold are fetched from (the fake) arXiv, ingested and put in the
collection, at most `PAPERCHAT_IMPORT_HARVEST_MAX` of them; those arXiv has not are listed
with why; off, or with arXiv down, they are listed as unmatched and the rest is imported."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from chat.settings import Settings
from chat.wiring import Wiring
from tests.fakes.arxiv import FakeArxiv, FakePaper
from tests.fakes.openai import FakeOpenAI
from tests.support.running.net import unused_port
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    serve_index,
)

pytestmark = pytest.mark.timeout(300)

HELD = "1812.06145"  # the first record of the shared metadata file: in the index
ON_ARXIV = (
    FakePaper("2401.00001", title="Parsing with graphs", summary="Graphs parse sentences."),
    FakePaper("2401.00002", title="Tokenisers compared", summary="Tokenisers, side by side."),
    FakePaper("2401.00003", title="Knots and links", summary="Knots, tied and untied."),
    FakePaper("2401.00005", title="Dark matter halos", summary="Halos of dark matter."),
)
NOT_ON_ARXIV = "2401.09999"


def bibtex(*arxiv_ids: str) -> str:
    """A BibTeX file naming the library's paper `HELD`, then each of `arxiv_ids`."""
    entries = [
        f"@misc{{held,\n  title={{Held}},\n  eprint={{{HELD}}},\n  archivePrefix={{arXiv}}\n}}"
    ]
    entries += [
        f"@misc{{e{n},\n  title={{Entry {n}}},\n  eprint={{{i}}},\n  archivePrefix={{arXiv}}\n}}"
        for n, i in enumerate(arxiv_ids, start=1)
    ]
    return "\n\n".join(entries) + "\n"


@pytest.fixture(scope="module", name="harvest_index")
def harvest_index_fixture(
    small_index: Wiring, tmp_path_factory: pytest.TempPathFactory, models_cache: Path
) -> Iterator[Wiring]:
    """A copy of the small index of its own: these tests add papers to it."""
    data_dir = tmp_path_factory.mktemp("harvest-index") / "data"
    shutil.copytree(small_index.settings.data_dir, data_dir)
    index = Wiring(Settings(data_dir=data_dir, models_cache=models_cache))
    yield index
    index.close()


ServeApi = Callable[..., AbstractContextManager[Api]]


@pytest.fixture(name="serve")
def serve_fixture(harvest_index: Wiring, fake_llm: FakeOpenAI, tmp_path: Path) -> ServeApi:
    """The app on `harvest_index`, with the settings given, asking arXiv at `api_url`."""

    @contextmanager
    def serve(api_url: str, **settings: Any) -> Iterator[Api]:
        database = tmp_path / f"db-{unused_port()}.sqlite"
        more = {"arxiv_api_url": api_url, "arxiv_interval_s": 0.0, **settings}
        yield from serve_index(harvest_index, fake_llm, database, **more)

    return serve


def test_allowed_the_missing_arxiv_papers_are_harvested_into_the_collection(
    serve: ServeApi,
) -> None:
    with (
        FakeArxiv(ON_ARXIV) as arxiv,
        serve(arxiv.api_url, import_harvest=True, import_harvest_max=2) as api,
        api.key_client() as client,
    ):
        made = client.post(
            "/api/collections/import",
            json={"content": bibtex("2401.00001", NOT_ON_ARXIV, "2401.00005")},
        )
        collection_id = made.json()["collection"]["id"]
        papers = client.get(f"/api/collections/{collection_id}/papers")
        paper = client.get("/api/papers/2401.00001")
        asked = [r.params.get("id_list") for r in arxiv.requests]

    assert made.status_code == 201, made.text
    answer = made.json()
    assert [(m["paper_id"], m["matched_by"]) for m in answer["matched"]] == [
        (HELD, "arxiv_id"),
        ("2401.00001", "harvested"),
    ]
    assert answer["unmatched"] == [
        {
            "at": "line 13",
            "title": "Entry 2",
            "reason": f"arXiv:{NOT_ON_ARXIV} could not be harvested: no paper "
            f"'{NOT_ON_ARXIV}' on arXiv",
        },
        {
            "at": "line 19",
            "title": "Entry 3",
            "reason": "the library does not hold arXiv:2401.00005; an import fetches at most "
            "2 papers from arXiv",
        },
    ]
    assert answer["collection"]["papers"] == 2
    assert [p["id"] for p in papers.json()] == [HELD, "2401.00001"]
    assert paper.json()["title"] == "Parsing with graphs"
    assert asked == [f"2401.00001,{NOT_ON_ARXIV}"]


def test_not_allowed_the_missing_arxiv_papers_are_listed_unmatched(serve: ServeApi) -> None:
    with FakeArxiv(ON_ARXIV) as arxiv, serve(arxiv.api_url) as api, api.key_client() as client:
        made = client.post("/api/collections/import", json={"content": bibtex("2401.00002")})
        paper = client.get("/api/papers/2401.00002")
        asked = list(arxiv.requests)

    assert made.status_code == 201, made.text
    answer = made.json()
    assert [m["paper_id"] for m in answer["matched"]] == [HELD]
    assert [m["reason"] for m in answer["unmatched"]] == [
        "the library does not hold arXiv:2401.00002"
    ]
    assert paper.status_code == 404
    assert asked == []


def test_with_arxiv_down_the_rest_is_imported_and_the_missing_say_why(serve: ServeApi) -> None:
    nowhere = f"http://127.0.0.1:{unused_port()}/api/query"

    with serve(nowhere, import_harvest=True) as api, api.key_client() as client:
        made = client.post("/api/collections/import", json={"content": bibtex("2401.00003")})
        paper = client.get("/api/papers/2401.00003")

    assert made.status_code == 201, made.text
    answer = made.json()
    assert [m["paper_id"] for m in answer["matched"]] == [HELD]
    [missing] = answer["unmatched"]
    assert missing["reason"].startswith("arXiv could not be asked: gave up on ")
    assert "Connect" in missing["reason"]
    assert paper.status_code == 404
