"""`/api/collections` over HTTP: made, listed, renamed and deleted by their owner, papers
added by id (one the index lacks is a 404 naming it) and listed with their titles."""

from __future__ import annotations

import pytest

from tests.chat.service.routes.collections.conftest import make_collection
from tests.support.running.concurrency import at_once
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)


def test_signed_out_or_without_csrf_is_refused(api: Api) -> None:
    with api.client() as anonymous, api.signed_in() as browser:
        listed = anonymous.get("/api/collections")
        made = anonymous.post("/api/collections", json={"name": "Reading"})
        browser.headers.pop("X-CSRF-Token")
        no_csrf = browser.post("/api/collections", json={"name": "Reading"})
        after = browser.get("/api/collections")

    assert (listed.status_code, made.status_code, no_csrf.status_code) == (401, 401, 403)
    assert after.json() == {"collections": []}


def test_a_collection_lists_its_papers_with_titles_in_the_order_added(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "  Distilling \n retrievers ")
        first = client.post(
            f"/api/collections/{collection_id}/papers", json={"paper_id": "arXiv:2007.01282v2"}
        )
        second = client.post(
            f"/api/collections/{collection_id}/papers", json={"paper_id": "1503.02531"}
        )
        again = client.post(
            f"/api/collections/{collection_id}/papers", json={"paper_id": "2007.01282"}
        )
        one = client.get(f"/api/collections/{collection_id}").json()
        papers = client.get(f"/api/collections/{collection_id}/papers").json()
        listed = client.get("/api/collections").json()["collections"]

    assert (first.status_code, second.status_code, again.status_code) == (201, 201, 200)
    assert first.json() == {"paper_id": "2007.01282", "added": True}
    assert again.json() == {"paper_id": "2007.01282", "added": False}
    assert one["name"] == "Distilling retrievers"
    assert [p["id"] for p in one["papers"]] == ["2007.01282", "1503.02531"]
    assert "Passage Retrieval" in one["papers"][0]["title"]
    assert "Distilling the Knowledge" in one["papers"][1]["title"]
    assert papers == one["papers"]
    assert [(c["id"], c["papers"], c["shared"]) for c in listed] == [(collection_id, 2, False)]


def test_an_unknown_paper_is_a_404_naming_it_and_nothing_is_added(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Unknown")
        unknown = client.post(
            f"/api/collections/{collection_id}/papers", json={"paper_id": "9999.99999"}
        )
        papers = client.get(f"/api/collections/{collection_id}/papers").json()

    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "no paper '9999.99999' in the index"}
    assert papers == []


def test_rename_and_remove_and_delete(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Old name", "2007.01282", "1503.02531")
        other_id = make_collection(client, "Other")
        renamed = client.patch(f"/api/collections/{collection_id}", json={"name": "New name"})
        clash = client.patch(f"/api/collections/{other_id}", json={"name": "New name"})
        removed = client.delete(f"/api/collections/{collection_id}/papers/2007.01282")
        removed_again = client.delete(f"/api/collections/{collection_id}/papers/2007.01282")
        left = client.get(f"/api/collections/{collection_id}/papers").json()
        deleted = client.delete(f"/api/collections/{collection_id}")
        gone = client.get(f"/api/collections/{collection_id}")
        names = [c["name"] for c in client.get("/api/collections").json()["collections"]]

    assert renamed.status_code == 200
    assert (renamed.json()["name"], renamed.json()["papers"]) == ("New name", 2)
    assert clash.status_code == 409
    assert removed.status_code == 204
    assert removed_again.status_code == 404
    assert [p["id"] for p in left] == ["1503.02531"]
    assert deleted.status_code == 204
    assert gone.status_code == 404
    assert gone.json() == {"detail": f"no collection {collection_id!r}"}
    assert names == ["Other"]


def test_a_name_taken_blank_or_too_long_is_refused(api: Api) -> None:
    with api.key_client() as client:
        make_collection(client, "Taken")
        taken = client.post("/api/collections", json={"name": "Taken"})
        blank = client.post("/api/collections", json={"name": " \n "})
        long = client.post("/api/collections", json={"name": "x" * 201})

    assert taken.status_code == 409
    assert taken.json() == {"detail": "you already have a collection named 'Taken'"}
    assert (blank.status_code, long.status_code) == (422, 422)


def test_collections_and_papers_past_the_settings_bounds_are_422(api: Api) -> None:
    settings = api.services.settings
    bounded = settings.model_copy(update={"max_collections": 1, "max_collection_papers": 1})
    api.services.settings = bounded
    try:
        with api.key_client() as client:
            collection_id = make_collection(client, "Only", "2007.01282")
            second = client.post("/api/collections", json={"name": "Second"})
            more = client.post(
                f"/api/collections/{collection_id}/papers", json={"paper_id": "1503.02531"}
            )
    finally:
        api.services.settings = settings

    assert second.status_code == 422
    assert second.json() == {"detail": "a user keeps at most 1 collections"}
    assert more.status_code == 422
    assert more.json() == {"detail": "a collection holds at most 1 papers"}


def test_the_same_paper_added_by_requests_at_once_is_held_once(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Raced")
        answers: list[int] = []

        def add() -> None:
            response = client.post(
                f"/api/collections/{collection_id}/papers", json={"paper_id": "2007.01282"}
            )
            answers.append(response.status_code)

        failures = at_once(add, 6)
        papers = client.get(f"/api/collections/{collection_id}/papers").json()

    assert failures == []
    assert sorted(answers) == [200] * 5 + [201]
    assert [p["id"] for p in papers] == ["2007.01282"]
