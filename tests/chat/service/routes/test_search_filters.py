"""`GET /api/search` with filters (category, first-submission dates, author), a sort
(relevance, newest) and pages, with the total over every page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
)

pytestmark = pytest.mark.timeout(180)

QUERY = "retrieval"


def searched(api: Api, **params: Any) -> dict[str, Any]:
    with api.key_client() as client:
        response = client.get("/api/search", params={"q": QUERY, **params})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_pages_split_the_total_without_overlap(api: Api) -> None:
    everything = searched(api, limit=50)
    first, second = searched(api, limit=3, page=1), searched(api, limit=3, page=2)
    beyond = searched(api, limit=3, page=everything["total"] // 3 + 2)

    assert everything["total"] == len(everything["results"]) > 6
    assert first["total"] == second["total"] == everything["total"]
    ids = [hit["id"] for hit in everything["results"]]
    assert [hit["id"] for hit in first["results"] + second["results"]] == ids[:6]
    assert (second["page"], second["limit"]) == (2, 3)
    assert beyond["results"] == []
    assert beyond["total"] == everything["total"]
    assert beyond["no_match"] is False


def test_newest_orders_the_same_papers_by_first_submission(api: Api) -> None:
    relevance = searched(api, limit=50)
    newest = searched(api, limit=50, sort="newest")

    dates = [hit["published"] for hit in newest["results"]]
    assert dates == sorted(dates, reverse=True)
    assert {h["id"] for h in newest["results"]} == {h["id"] for h in relevance["results"]}
    assert [h["id"] for h in newest["results"]] != [h["id"] for h in relevance["results"]]


def test_a_category_keeps_its_papers_only(api: Api) -> None:
    everything = searched(api, limit=50)
    assert everything["total"] == len(everything["results"])
    categories = sorted({c for hit in everything["results"] for c in hit["categories"]})

    for category in categories:
        within = searched(api, limit=50, category=category)
        expected = [h["id"] for h in everything["results"] if category in h["categories"]]

        assert all(category in hit["categories"] for hit in within["results"]), category
        # A filter narrows the list; it does not change whether the query matches. (Within
        # a category a search may reach papers the whole library ranked past its cut.)
        assert set(expected) <= {h["id"] for h in within["results"]}, category
        assert within["total"] == len(within["results"]) >= len(expected), category


def test_a_date_range_keeps_papers_first_submitted_within_it(api: Api) -> None:
    everything = searched(api, limit=50)
    dates = sorted(hit["published"] for hit in everything["results"])
    low, high = dates[len(dates) // 4], dates[3 * len(dates) // 4]
    within = searched(api, limit=50, **{"from": f"{low[:7]}-01", "to": f"{high[:7]}-28"})

    assert 0 < within["total"] < everything["total"]
    assert all(f"{low[:7]}" <= hit["published"][:7] <= high[:7] for hit in within["results"])


def test_an_author_keeps_their_papers_only(api: Api) -> None:
    everything = searched(api, limit=50)
    author = everything["results"][0]["authors"].split(",")[0].strip()
    theirs = searched(api, limit=50, author=author)

    assert theirs["results"]
    assert theirs["total"] < everything["total"]
    assert all(author in hit["authors"] for hit in theirs["results"])


def test_an_empty_date_range_matches_nothing_and_says_why(api: Api) -> None:
    found = searched(api, **{"from": "2020-02-01", "to": "2020-01-01"})

    assert (found["results"], found["total"], found["no_match"]) == ([], 0, True)
    assert found["no_match_reason"] == "published_from is after published_to"


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"from": "2020-13-45"}, 422),
        ({"sort": "oldest"}, 422),
        ({"page": 0}, 422),
        ({"author": "Nobody Of-That-Name"}, 404),
    ],
)
def test_a_wrong_filter_is_refused_by_name(api: Api, params: dict[str, Any], status: int) -> None:
    with api.key_client() as client:
        response = client.get("/api/search", params={"q": QUERY, **params})

    assert response.status_code == status
    assert response.json()["detail"]
