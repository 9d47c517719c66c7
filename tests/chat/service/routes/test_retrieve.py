"""`POST /api/retrieve`: passages with their metadata and scores, no answer; the chat routes'
sign-in and limits."""

from __future__ import annotations

from typing import Any

import pytest

from chat.service.access.ratelimit import build_rate_limiter
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

FID = "How does Fusion-in-Decoder combine the retrieved passages?"
FIELDS = {
    "chunk_id", "paper_id", "title", "authors", "categories", "published", "kind",
    "section", "page", "text", "score", "url", "citation",
}  # fmt: skip


def _retrieve(api: Api, **body: Any) -> list[dict[str, Any]]:
    with api.key_client() as client:
        response = client.post("/api/retrieve", json={"query": FID} | body)
    assert response.status_code == 200, response.text
    passages: list[dict[str, Any]] = response.json()["passages"]
    return passages


def test_passages_come_best_first_with_their_metadata(api: Api) -> None:
    passages = _retrieve(api, k=5)

    scores = [p["score"] for p in passages]
    assert len(passages) == 5
    assert all(set(p) == FIELDS for p in passages)
    assert scores == sorted(scores, reverse=True)
    assert "2007.01282" in {p["paper_id"] for p in passages}
    fid = next(p for p in passages if p["paper_id"] == "2007.01282")
    assert fid["url"] == "https://arxiv.org/abs/2007.01282"
    assert fid["citation"] == "[arXiv:2007.01282]"
    assert fid["categories"] == ["cs.CL"]


def test_paper_ids_and_categories_restrict_the_passages(api: Api) -> None:
    only_fid = _retrieve(api, paper_ids=["arXiv:2007.01282v2"])
    in_vision = _retrieve(api, query="hand gesture recognition from video", categories=["cs.CV"])

    assert {p["paper_id"] for p in only_fid} == {"2007.01282"}
    assert in_vision
    assert all("cs.CV" in p["categories"] for p in in_vision)
    assert all(p["authors"] for p in in_vision if p["kind"] == "abstract")


def test_a_date_range_covering_everything_keeps_every_passage(api: Api) -> None:
    unfiltered = _retrieve(api)

    passages = _retrieve(api, published_from="1990-01-01", published_to="2030-12-31")

    assert [p["chunk_id"] for p in passages] == [p["chunk_id"] for p in unfiltered]


def test_a_paper_known_by_its_month_is_in_a_range_of_that_month(api: Api) -> None:
    in_july = _retrieve(api, published_from="2020-07-01", published_to="2020-07-31")
    in_june = _retrieve(api, published_from="2020-06-01", published_to="2020-06-30")

    # FiD's PDF is of version 2: the id's month is all that is known of its first version.
    assert {p["published"] for p in in_july if p["paper_id"] == "2007.01282"} == {"2020-07"}
    assert all(p["paper_id"] != "2007.01282" for p in in_june)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"query": FID, "k": 0}, "k: Input should be greater than or equal to 1"),
        ({"query": FID, "k": 51}, "k: Input should be less than or equal to 50"),
        ({"query": "   "}, "the query is empty"),
        ({"query": ""}, "query: String should have at least 1 character"),
        ({"query": FID, "published_from": "2021-01-01", "published_to": "2020-01-01"}, "after"),
        ({"query": FID, "published_from": "last year"}, "published_from"),
        ({"query": FID, "published_from": 0}, "published_from: Input should be a valid string"),
        ({"query": FID, "published_to": "2021-02-30"}, "'2021-02-30' is not a date"),
        ({"query": FID, "colour": "blue"}, "colour: Extra inputs are not permitted"),
        ({"k": 3}, "query: Field required"),
    ],
)
def test_bad_requests_are_refused_naming_the_field(
    api: Api, body: dict[str, Any], words: str
) -> None:
    with api.key_client() as client:
        response = client.post("/api/retrieve", json=body)

    assert response.status_code == 422
    assert words in response.json()["detail"]


def test_sign_in_is_needed_and_a_session_needs_its_csrf_token(api: Api) -> None:
    email = api.new_user()
    with api.client() as anonymous:
        nobody = anonymous.post("/api/retrieve", json={"query": FID})
    with api.signed_in(email) as browser:
        signed_in = browser.post("/api/retrieve", json={"query": FID, "k": 2})
        no_token = browser.post(
            "/api/retrieve", json={"query": FID}, headers={"X-CSRF-Token": "wrong"}
        )

    assert nobody.status_code == 401
    assert signed_in.status_code == 200
    assert len(signed_in.json()["passages"]) == 2
    assert no_token.status_code == 403


def test_retrieval_counts_against_the_keys_budget(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.services, "api_limiter", build_rate_limiter("2/minute", None))
    with api.key_client() as client:
        statuses = [
            client.post("/api/retrieve", json={"query": FID, "k": 1}).status_code for _ in range(3)
        ]

    assert statuses == [200, 200, 429]


def test_an_author_restricts_the_passages_to_their_papers(api: Api) -> None:
    passages = _retrieve(api, query="hand gesture recognition", author="Mahdi Abavisani")
    with api.key_client() as client:
        unknown = client.post("/api/retrieve", json={"query": FID, "author": "Nobody Atall"})

    assert "1812.06145" in {p["paper_id"] for p in passages}
    assert all("Abavisani" in p["authors"] for p in passages)
    assert unknown.status_code == 404
    assert "Nobody Atall" in unknown.json()["detail"]
