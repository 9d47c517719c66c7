"""A collection holding its owner's uploads beside its papers: a question within it reads
them, for its owner; its share link and its files show no trace of them, to anyone; and an
upload deleted leaves every collection."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.service.mcp.test_endpoint import mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    ARXIV_PDF,
    Uploader,
    citation,
    two_uploads_fixture,
    upload,
    uploads_api_fixture,
)
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(900)

FID = "2007.01282"
SURVEY = (
    "Among the surveyed papers that performed human evaluation of long-form summaries, "
    "how many carried out any kind of statistical analysis?"
)
NORM = "How does batch normalization reduce internal covariate shift?"


def _add(client: httpx.Client, collection_id: str, upload_id: str) -> httpx.Response:
    return client.post(f"/api/collections/{collection_id}/uploads", json={"upload_id": upload_id})


def _sources(client: httpx.Client, body: dict[str, object]) -> tuple[int, set[str]]:
    with client.stream("POST", "/api/chat", json=body) as streamed:
        events = read_events(streamed)
    found = {s["id"] for e in events if e.name == "sources" for s in e.data["sources"]}
    return streamed.status_code, found


def test_a_collection_answers_from_its_upload_for_its_owner_and_shares_no_trace_of_it(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    _, survey = two_uploads
    uploads_api.fake.default_script = ChatScript(pieces=(f"Twelve {citation(survey.doc_id)}.",))
    secrets = (survey.upload["id"], survey.doc_id, survey.upload["title"], "mine.pdf")

    with survey.client(uploads_api) as owner, uploads_api.client() as anyone:
        collection_id = make_collection(owner, "Summaries", FID)
        added, again = (_add(owner, collection_id, survey.upload["id"]) for _ in range(2))
        held = owner.get(f"/api/collections/{collection_id}").json()
        status, sources = _sources(owner, {"message": SURVEY, "collection_id": collection_id})
        link = owner.post(f"/api/collections/{collection_id}/share").json()["url"]
        shown = [anyone.get(link, params={"format": f}).text for f in ("json", "markdown", "csv")]
        exported = [
            owner.get(f"/api/collections/{collection_id}/export", params={"format": f}).text
            for f in ("bibtex", "csv", "markdown")
        ]

    assert (added.status_code, again.status_code) == (201, 200)
    assert (added.json()["added"], again.json()["added"]) == (True, False)
    assert [u["id"] for u in held["uploads"]] == [survey.upload["id"]]
    assert [p["id"] for p in held["papers"]] == [FID]
    assert status == 200
    assert survey.doc_id in sources
    assert sources <= {FID, survey.doc_id}
    for text in [*shown, *exported]:
        assert FID in text
        assert not any(secret in text for secret in secrets)


def test_a_collection_of_uploads_alone_answers_from_them_and_mcp_the_same(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    uploads_api.fake.default_script = ChatScript(pieces=(f"By batch {citation(norm.doc_id)}.",))

    with norm.client(uploads_api) as owner:
        collection_id = make_collection(owner, "Only uploads")
        assert _add(owner, collection_id, norm.upload["id"]).status_code == 201
        status, sources = _sources(owner, {"message": NORM, "collection_id": collection_id})

    assert status == 200
    assert sources == {norm.doc_id}


async def test_mcp_asks_a_collection_with_its_uploads(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    uploads_api.fake.default_script = ChatScript(pieces=(f"By batch {citation(norm.doc_id)}.",))
    with norm.client(uploads_api) as owner:
        collection_id = make_collection(owner, "Asked over MCP", FID)
        assert _add(owner, collection_id, norm.upload["id"]).status_code == 201

    async with mcp_client(uploads_api, norm.key) as mcp:
        asked = await mcp.call_tool(
            "ask_collection", {"question": NORM, "collection_id": collection_id}
        )

    answer = structured(asked)
    assert norm.doc_id in {s["id"] for s in answer["sources"]}
    assert answer["citations"] == [norm.doc_id]


def test_deleting_an_upload_takes_it_out_of_its_collections(uploads_api: Api) -> None:
    key = uploads_api.key_for(uploads_api.new_user())

    with uploads_api.client(Authorization=f"Bearer {key}") as owner:
        made = upload(owner, ARXIV_PDF)
        collections = [make_collection(owner, name) for name in ("First", "Second")]
        for collection_id in collections:
            assert _add(owner, collection_id, made["id"]).status_code == 201
        deleted = owner.delete(f"/api/uploads/{made['id']}")
        held = [owner.get(f"/api/collections/{c}").json()["uploads"] for c in collections]
        asked = owner.post("/api/chat", json={"message": NORM, "collection_id": collections[0]})

    assert deleted.status_code == 204
    assert held == [[], []]
    assert asked.status_code == 422
    assert asked.json()["detail"] == f"collection {collections[0]!r} holds no papers"
