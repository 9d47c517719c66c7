"""Author pages and the author filter, over the small index of real abstracts."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    SseEvent,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

# The first test may build the session's small index (three PDFs): slow on a busy machine.
pytestmark = pytest.mark.timeout(300)

# Three papers of the small index list him; the first 150 abstracts have no other Prange.
PRANGE = "Jakob Prange"
PRANGE_PAPERS = ["2305.18915", "2302.08150", "2112.07874"]
QUESTION = "How do neural language models learn from linguistic structure?"


def _chat(client: httpx.Client, path: str, body: dict[str, Any]) -> list[SseEvent]:
    with client.stream("POST", path, json=body) as response:
        assert response.status_code == 200, response.read()
        return read_events(response)


@pytest.mark.parametrize("name", [PRANGE, "jakob  PRANGE", "J. Prange", "Jákob Prangé"])
def test_an_author_is_found_by_any_spelling_with_papers_newest_first(api: Api, name: str) -> None:
    with api.key_client() as client:
        response = client.get(f"/api/authors/{name}")

    assert response.status_code == 200
    author = response.json()
    assert author["name"] == PRANGE
    assert [p["id"] for p in author["papers"]] == PRANGE_PAPERS
    assert {"name": "cs.CL", "papers": 3} in author["categories"]
    # Years of first submission (May 2023, Feb 2023, Dec 2021), not of the snapshot's update.
    assert author["years"] == [{"name": "2023", "papers": 2}, {"name": "2021", "papers": 1}]
    assert set(author["papers"][0]) == {"id", "title", "authors", "categories", "published", "url"}


def test_an_unknown_author_is_404_and_needs_sign_in(api: Api) -> None:
    with api.key_client() as client:
        unknown = client.get("/api/authors/Nobody Prange")
    with api.client() as anonymous:
        signed_out = anonymous.get(f"/api/authors/{PRANGE}")

    assert unknown.status_code == 404
    assert "Nobody Prange" in unknown.json()["detail"]
    assert signed_out.status_code == 401


def test_chat_with_an_author_cites_only_their_papers(api: Api) -> None:
    with api.signed_in() as client:
        events = _chat(client, "/api/chat", {"message": QUESTION, "author": "j. prange"})

    sources = events[1].data["sources"]
    assert sources
    assert {s["id"] for s in sources} <= set(PRANGE_PAPERS)
    assert events[-1].name == "done"


def test_author_and_paper_ids_together_keep_only_the_authors_among_them(api: Api) -> None:
    body = {"message": QUESTION, "author": PRANGE, "paper_ids": ["2302.08150", "2007.01282"]}
    elsewhere = {"message": QUESTION, "author": PRANGE, "paper_ids": ["2007.01282"]}

    with api.signed_in() as client:
        both = _chat(client, "/api/chat", body)
        none = _chat(client, "/api/chat", elsewhere)

    assert {s["id"] for s in both[1].data["sources"]} == {"2302.08150"}
    assert none[1].data["sources"] == []
    assert "could not find anything" in "".join(e.data.get("text", "") for e in none)


def test_chat_with_an_unknown_author_is_404_and_starts_no_conversation(api: Api) -> None:
    with api.signed_in() as client:
        response = client.post("/api/chat", json={"message": QUESTION, "author": "No Body"})
        conversations = client.get("/api/conversations").json()

    assert response.status_code == 404
    assert "No Body" in response.json()["detail"]
    assert conversations == []


def test_openai_endpoint_takes_the_author_filter(api: Api) -> None:
    body = {"model": "paperchat", "messages": [{"role": "user", "content": QUESTION}]}

    with api.key_client() as client:
        scoped = client.post("/v1/chat/completions", json={**body, "author": PRANGE})
        unknown = client.post("/v1/chat/completions", json={**body, "author": "No Body"})

    assert scoped.status_code == 200
    assert {s["id"] for s in scoped.json()["sources"]} <= set(PRANGE_PAPERS)
    assert scoped.json()["sources"]
    assert unknown.status_code == 404


def test_an_overlong_author_name_is_422(api: Api) -> None:
    with api.signed_in() as client:
        response = client.post("/api/chat", json={"message": QUESTION, "author": "x" * 201})

    assert response.status_code == 422
    assert "author" in response.json()["detail"]


def test_author_page_lists_the_papers_and_unknown_is_a_404_page_with_search(api: Api) -> None:
    with api.client() as client:
        page = client.get("/authors/J.%20Prange", follow_redirects=True)
        unknown = client.get("/authors/Nobody%20Atall")
        paper = client.get("/papers/2302.08150", follow_redirects=True)

    assert page.status_code == 200
    assert page.history[0].status_code == 308
    assert page.text.count('class="result"') == 3
    assert 'data-author="Jakob Prange"' in page.text
    assert "<h1>Jakob Prange</h1>" in page.text
    assert unknown.status_code == 404
    assert 'role="search"' in unknown.text
    assert "Nobody Atall" in unknown.text
    assert '<a href="/authors/Jakob%20Prange">Jakob Prange</a>' in paper.text


def test_author_counts_leave_out_the_msc_and_acm_classes_listed_among_categories(
    api: Api,
) -> None:
    with api.key_client() as client:
        author = client.get("/api/authors/M. Abavisani").json()

    counted = {c["name"]: c["papers"] for c in author["categories"]}
    assert counted["cs.CV"] == 2
    assert counted["stat.ML"] == 2
    assert not {"68T45,", "62H30", "I.5.3;", "I.2.10"} & set(counted)
    assert [p["id"] for p in author["papers"]] == ["1904.11093", "1812.06145"]
