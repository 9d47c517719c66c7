"""An institution by its ROR id, from a record that gives one: `/institutions/ror/<id>`
(the bare id or its URL) redirects to its page, which links the id; `GET /api/institutions
?ror=` finds it; a malformed id or one no record gives is a clear 404 (422 in the API)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import Api, serve_index

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)

GOOGLE_ROR = "00njsd438"
RECORDS = [
    {
        "id": "2401.00011",
        "title": "Sparse experts at scale",
        "abstract": "We route tokens to experts and study how routing scales.",
        "authors": "Noam Shazeer, Ada Lovelace",
        "categories": "cs.LG",
        "update_date": "2024-01-05",
        "affiliations": [
            [{"name": "Google Research", "ror": f"https://ror.org/{GOOGLE_ROR}"}],
            ["Analytical Engines Ltd"],
        ],
    },
    {
        "id": "2401.00012",
        "title": "Routing without experts",
        "abstract": "A study of routing in dense models without experts.",
        "authors": "Bo Author",
        "categories": "cs.LG",
        "update_date": "2024-01-06",
        "affiliations": [["Google Research"]],
    },
]


@pytest.fixture(scope="module", name="ror_index")
def ror_index_fixture(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path
) -> Iterator[Wiring]:
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items

    root = tmp_path_factory.mktemp("ror-index")
    records = root / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    pipeline = Pipeline(index.catalog, index.indexer, index.embedder.embed, NoProgress())
    pipeline.run(metadata_items(records, index.embedder.count_tokens), IngestReport())
    yield index
    index.close()


@pytest.fixture(scope="module", name="ror_api")
def ror_api_fixture(
    ror_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    yield from serve_index(ror_index, fake_llm, tmp_path_factory.mktemp("ror-db") / "db.sqlite")


@pytest.mark.parametrize(
    "form", [GOOGLE_ROR, f"https://ror.org/{GOOGLE_ROR}", f"https%3A%2F%2Fror.org%2F{GOOGLE_ROR}"]
)
def test_a_ror_id_redirects_to_the_institutions_page(ror_api: Api, form: str) -> None:
    with ror_api.client() as client:
        moved = client.get(f"/institutions/ror/{form}")
        page = client.get(moved.headers["location"])

    assert moved.status_code == 308
    assert moved.headers["location"].startswith("/institutions/")
    assert moved.headers["location"].endswith("-google-research")
    assert page.status_code == 200
    assert "<h1>Google Research</h1>" in page.text
    assert f'href="https://ror.org/{GOOGLE_ROR}"' in page.text
    assert f'"sameAs": "https://ror.org/{GOOGLE_ROR}"' in page.text


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        ("03vek6s52", "No institution with the ROR id 03vek6s52 in the index"),
        ("00njsd439", "its check digits are wrong"),
        ("not-a-ror", "is not a ROR id"),
    ],
)
def test_an_unknown_or_malformed_ror_id_is_a_clear_404(
    ror_api: Api, form: str, reason: str
) -> None:
    with ror_api.client() as client:
        response = client.get(f"/institutions/ror/{form}")

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert reason in response.text


def test_the_api_finds_an_institution_by_its_ror_id(ror_api: Api) -> None:
    with ror_api.key_client() as client:
        by_ror = client.get("/api/institutions", params={"ror": f"https://ror.org/{GOOGLE_ROR}"})
        unknown = client.get("/api/institutions", params={"ror": "03vek6s52"})
        malformed = client.get("/api/institutions", params={"ror": "00njsd439"})
        one = client.get(f"/api/institutions/{by_ror.json()['results'][0]['id']}").json()

    assert [(r["name"], r["papers"]) for r in by_ror.json()["results"]] == [("Google Research", 2)]
    assert unknown.json() == {"results": []}
    assert malformed.status_code == 422
    assert "check digits" in malformed.json()["detail"]
    assert one["ror"] == f"https://ror.org/{GOOGLE_ROR}"
    assert sorted(p["id"] for p in one["papers"]) == ["2401.00011", "2401.00012"]
