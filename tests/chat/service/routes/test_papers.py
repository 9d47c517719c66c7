"""Papers and search for the dock, health and metrics."""

from __future__ import annotations

import logging

import pytest

from chat.rag.retrieval.relevance import NOT_SCHOLARLY
from chat.service.access.ratelimit import build_rate_limiter
from chat.service.app import MAX_LOGGED_PATH
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("given", ["2007.01282", "2007.01282v2", "arXiv:2007.01282v1"])
def test_paper_is_found_with_or_without_version(api: Api, given: str) -> None:
    with api.key_client() as client:
        response = client.get(f"/api/papers/{given}")

    assert response.status_code == 200
    paper = response.json()
    assert paper["id"] == "2007.01282"
    assert paper["has_fulltext"] is True
    assert paper["url"] == "https://arxiv.org/abs/2007.01282"
    assert paper["pdf_url"] == "https://arxiv.org/pdf/2007.01282"
    assert paper["published"] == "2020-07"  # the id's month: the PDF is of version 2
    assert set(paper) == {
        "id", "title", "authors", "abstract", "categories", "published", "updated",
        "comments", "journal_ref", "doi", "has_fulltext", "field_sources", "url", "pdf_url",
    }  # fmt: skip


@pytest.mark.parametrize("given", ["9999.99999", "hep-th/9901001", "hep-th/9901001v2"])
def test_unknown_paper_is_404_old_style_ids_included(api: Api, given: str) -> None:
    with api.key_client() as client:
        response = client.get(f"/api/papers/{given}")

    assert response.status_code == 404
    assert given in response.json()["detail"]


def test_search_returns_one_result_per_paper_best_first(api: Api) -> None:
    with api.key_client() as client:
        response = client.get("/api/search", params={"q": "knowledge distillation", "limit": 5})

    assert response.status_code == 200
    results = response.json()["results"]
    assert 1 <= len(results) <= 5
    ids = [r["id"] for r in results]
    assert len(ids) == len(set(ids))
    assert "1503.02531" in ids
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert set(results[0]) == {
        "id", "title", "authors", "snippet", "score", "published", "categories",
    }  # fmt: skip


def test_search_limit_above_50_is_422(api: Api) -> None:
    with api.key_client() as client:
        response = client.get("/api/search", params={"q": "transformers", "limit": 51})

    assert response.status_code == 422
    assert "limit" in response.json()["detail"]


def test_metrics_count_requests_by_route_template(api: Api) -> None:
    with api.key_client() as client:
        client.get("/api/papers/2007.01282")
        metrics = client.get("/metrics")

    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    assert 'route="/api/papers/{arxiv_id:path}"' in metrics.text
    assert "2007.01282" not in metrics.text


def test_every_response_carries_a_request_id(api: Api) -> None:
    with api.client() as client:
        given = client.get("/api/health", headers={"X-Request-ID": "abc-123"})
        fresh = client.get("/api/health")

    assert given.headers["x-request-id"] == "abc-123"
    assert len(fresh.headers["x-request-id"]) >= 8


def test_each_request_is_logged_with_its_path_and_client_but_never_its_query(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    long_path = "/papers/" + "9" * 5_000
    with caplog.at_level(logging.INFO, logger="paperchat.app"), api.client() as client:
        client.get("/api/search", params={"q": "private words of a search", "token": "x"})
        client.get(long_path)

    lines = [r for r in caplog.records if r.name == "paperchat.app"]
    search, long = (next(r for r in lines if r.getMessage().startswith(f"GET {route} "))
                    for route in ("/api/search", "/papers/{arxiv_id:path}"))  # fmt: skip
    assert (search.path, search.client) == ("/api/search", "127.0.0.1")  # type: ignore[attr-defined]  # extra fields
    assert "private" not in " ".join(f"{r.getMessage()} {vars(r)}" for r in lines)
    assert long.path == long_path[:MAX_LOGGED_PATH] + "..."  # type: ignore[attr-defined]  # an extra field


def test_search_is_limited_per_user(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api.services, "search_limiter", build_rate_limiter("2/minute", None))
    with api.key_client() as client:
        codes = [client.get("/api/search", params={"q": "attention"}).status_code for _ in range(3)]
        limited = client.get("/api/search", params={"q": "attention"})

    assert codes == [200, 200, 429]
    assert limited.json()["detail"].startswith("too many searches")
    assert int(limited.headers["Retry-After"]) >= 1


def test_search_is_limited_per_address_across_users(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.services, "search_limiter", build_rate_limiter("2/minute", None))
    codes = []
    for _ in range(3):
        with api.key_client() as client:
            codes.append(client.get("/api/search", params={"q": "attention"}).status_code)

    assert codes == [200, 200, 429]


def test_gibberish_search_says_no_papers_match(api: Api) -> None:
    with api.key_client() as client:
        response = client.get("/api/search", params={"q": "zzzxxqq", "limit": 20})
        page = client.get("/", params={"q": "zzzxxqq"})

    assert response.status_code == 200
    body = response.json()
    assert (body["results"], body["no_match"]) == ([], True)
    assert body["no_match_reason"] == NOT_SCHOLARLY
    assert "No papers match" in page.text
