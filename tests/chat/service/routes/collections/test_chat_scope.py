"""`POST /api/chat` within a collection: the answer's sources are the collection's papers
only, whatever the question names; an empty scope is refused rather than widened."""

from __future__ import annotations

import pytest

from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.conftest import FID, ask
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    SseEvent,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

COLLECTED = ("1503.02531", "1812.06145")


def _source_ids(events: list[SseEvent]) -> set[str]:
    (sources,) = [e for e in events if e.name == "sources"]
    return {s["id"] for s in sources.data["sources"]}


def test_an_answer_within_a_collection_cites_only_its_papers(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Not FiD", *COLLECTED)
        everywhere = ask(client, FID)
        within = ask(client, FID, collection_id=collection_id)

    assert "2007.01282" in _source_ids(everywhere)
    assert _source_ids(within)
    assert _source_ids(within) <= set(COLLECTED)
    assert within[-1].name == "done"
    assert set(within[-1].data["citations"]) <= set(COLLECTED)


@pytest.mark.parametrize(
    "question",
    [
        "What does arXiv:2007.01282 say about distillation?",
        "Who wrote arXiv:2007.01282?",
        "When was Fusion-in-Decoder published?",
    ],
)
def test_a_question_naming_a_paper_outside_the_collection_stays_inside(
    api: Api, question: str
) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Distillation", "1503.02531")
        unscoped = ask(client, question)
        named = ask(client, question, collection_id=collection_id)

    assert "2007.01282" in _source_ids(unscoped)
    assert _source_ids(named) <= {"1503.02531"}


def test_a_record_question_about_a_paper_of_the_collection_has_its_record(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "FiD", "2007.01282", "1503.02531")
        events = ask(client, "Who wrote arXiv:2007.01282?", collection_id=collection_id)

    (first, *_) = events[1].data["sources"]
    assert (first["chunk_id"], first["section"]) == ("2007.01282#record", "Record")


def test_paper_ids_narrow_a_collection_and_an_empty_scope_is_refused(api: Api) -> None:
    with api.key_client() as client:
        collection_id = make_collection(client, "Two papers", *COLLECTED)
        empty_id = make_collection(client, "Empty")
        narrowed = ask(client, FID, collection_id=collection_id, paper_ids=["arXiv:1503.02531v1"])
        outside = client.post(
            "/api/chat",
            json={"message": FID, "collection_id": collection_id, "paper_ids": ["2007.01282"]},
        )
        empty = client.post("/api/chat", json={"message": FID, "collection_id": empty_id})

    assert _source_ids(narrowed) <= {"1503.02531"}
    assert outside.status_code == 422
    assert outside.json() == {"detail": f"collection {collection_id!r} holds none of those papers"}
    assert empty.status_code == 422
    assert empty.json() == {"detail": f"collection {empty_id!r} holds no papers"}


def test_the_openai_routes_answer_within_a_collection_of_the_keys_owner_only(api: Api) -> None:
    email = api.new_user()
    with api.key_client(email) as owner:
        collection_id = make_collection(owner, "Not FiD", *COLLECTED)
        scoped = {"collection_id": collection_id}
        completion = owner.post(
            "/v1/chat/completions",
            json={"model": "paperchat", "messages": [{"role": "user", "content": FID}], **scoped},
        )
        response = owner.post("/v1/responses", json={"model": "paperchat", "input": FID, **scoped})
    with api.key_client() as attacker:
        refused = [
            attacker.post(
                "/v1/chat/completions",
                json={"model": "paperchat", "messages": [{"role": "user", "content": FID}]}
                | {"collection_id": target},
            )
            for target in (collection_id, "00000000-0000-4000-8000-000000000000")
        ]
        refused_response = attacker.post(
            "/v1/responses", json={"model": "paperchat", "input": FID, **scoped}
        )

    assert completion.status_code == 200, completion.text
    assert {s["id"] for s in completion.json()["sources"]} <= set(COLLECTED)
    assert response.status_code == 200, response.text
    assert {s["id"] for s in response.json()["sources"]} <= set(COLLECTED)
    assert [r.status_code for r in refused] == [404, 404]
    messages = [r.json()["error"]["message"] for r in refused]
    assert messages[0].replace(collection_id, "ID") == messages[1].replace(
        "00000000-0000-4000-8000-000000000000", "ID"
    )
    assert refused_response.status_code == 404
