"""An upload the library holds already (its `library_id`: the PDF is an arXiv paper of the
library, kept as that paper and not as an index of its own) is that paper everywhere an
upload is named: asked by `upload_ids` on `/api/chat`, `/v1` and MCP, the answer is the
library paper's and cites it as `[arXiv:<id>]`; added to a collection, the paper goes in.
For another user the same id is the 404 of a missing one."""

from __future__ import annotations

import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    ARXIV_PDF,
    LIBRARY_PDF,
    Uploader,
    ask_chat,
    citation,
    source_ids,
    upload,
    uploads_api_fixture,
)
from tests.fakes.openai import ChatScript
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(900)

MISSING = "00000000-0000-4000-8000-000000000000"
FID = "2007.01282"
QUESTION = "How does Fusion-in-Decoder combine the retrieved passages?"
MIXED = (
    "How does Fusion-in-Decoder combine the retrieved passages, and how does batch "
    "normalization reduce internal covariate shift?"
)
DISTILLATION = "How is the knowledge of an ensemble distilled into a single small model?"
DISTILLING = "1503.02531"
ANSWER = f"It reads them all together in the decoder [arXiv:{FID}]."


@pytest.fixture(scope="module", name="linked")
def linked_fixture(uploads_api: Api) -> tuple[Uploader, Uploader]:
    """One user's two uploads: Fusion-in-Decoder's PDF, which the library holds (linked to
    it), and Batch Normalization's, read into an index of its own."""
    email = uploads_api.new_user()
    key = uploads_api.key_for(email)
    made = []
    with uploads_api.client(Authorization=f"Bearer {key}") as client:
        for name in (LIBRARY_PDF, ARXIV_PDF):
            read_one = upload(client, name)
            assert read_one["status"] == "ready", read_one
            made.append(Uploader(email, key, read_one))
    assert made[0].upload["library_id"] == FID
    assert made[1].upload["doc_id"] is not None
    return made[0], made[1]


def test_naming_an_upload_the_library_holds_asks_the_library_paper(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, _ = linked
    uploads_api.fake.default_script = ChatScript(pieces=(ANSWER,))

    with fid.client(uploads_api) as owner:
        status, events = ask_chat(owner, {"message": QUESTION, "upload_ids": [fid.upload["id"]]})

    done = events[-1]
    assert status == 200
    assert source_ids(events) == {FID}
    assert done.name == "done", done.data
    assert done.data["citations"] == [FID]
    assert "".join(e.data["text"] for e in events if e.name == "delta") == ANSWER


def test_the_library_paper_of_an_upload_is_asked_beside_an_upload_of_its_own(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, norm = linked
    cited = f"In the decoder [arXiv:{FID}], over mini-batches {citation(norm.doc_id)}."
    uploads_api.fake.default_script = ChatScript(pieces=(cited,))
    body = {"message": MIXED, "upload_ids": [fid.upload["id"], norm.upload["id"]]}

    with fid.client(uploads_api) as owner:
        status, events = ask_chat(owner, body)

    done = events[-1]
    assert status == 200
    assert source_ids(events) == {FID, norm.doc_id}
    assert done.name == "done", done.data
    assert sorted(done.data["citations"]) == sorted([FID, norm.doc_id])


def test_with_library_an_upload_the_library_holds_leaves_the_whole_library_asked(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, _ = linked
    uploads_api.fake.default_script = ChatScript(pieces=("Fine.",))
    body = {"message": DISTILLATION, "upload_ids": [fid.upload["id"]]}

    with fid.client(uploads_api) as owner:
        _, alone = ask_chat(owner, body)
        _, whole = ask_chat(owner, body | {"with_library": True})

    assert source_ids(alone) == {FID}
    assert DISTILLING in source_ids(whole)


def test_v1_and_mcp_ask_an_upload_the_library_holds_as_its_paper(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, _ = linked
    uploads_api.fake.default_script = ChatScript(pieces=(ANSWER,))
    body = {
        "model": "paperchat",
        "messages": [{"role": "user", "content": QUESTION}],
        "upload_ids": [fid.upload["id"]],
    }

    with fid.client(uploads_api) as owner:
        completion = owner.post("/v1/chat/completions", json=body)
        response = owner.post(
            "/v1/responses",
            json={"model": "paperchat", "input": QUESTION, "upload_ids": [fid.upload["id"]]},
        )

    assert completion.status_code == 200, completion.text
    assert {s["id"] for s in completion.json()["sources"]} == {FID}
    assert completion.json()["citations"] == [FID]
    assert response.status_code == 200, response.text
    assert {s["id"] for s in response.json()["sources"]} == {FID}
    assert response.json()["citations"] == [FID]


async def test_mcp_ask_uploads_answers_from_the_library_paper_of_an_upload(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, _ = linked
    uploads_api.fake.default_script = ChatScript(pieces=(ANSWER,))

    async with mcp_client(uploads_api, fid.key) as mcp:
        asked = await mcp.call_tool(
            "ask_uploads", {"question": QUESTION, "upload_ids": [fid.upload["id"]]}
        )

    answer = structured(asked)
    assert {s["id"] for s in answer["sources"]} == {FID}
    assert answer["citations"] == [FID]
    assert answer["answer"] == ANSWER


def test_adding_an_upload_the_library_holds_to_a_collection_adds_its_paper(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, _ = linked
    upload_id = fid.upload["id"]

    with fid.client(uploads_api) as owner:
        collection_id = make_collection(owner, "Readers")
        path = f"/api/collections/{collection_id}/uploads"
        added = owner.post(path, json={"upload_id": upload_id})
        again = owner.post(path, json={"upload_id": upload_id})
        held = owner.get(f"/api/collections/{collection_id}").json()
        taken = owner.delete(f"{path}/{upload_id}")
        left = owner.get(f"/api/collections/{collection_id}").json()
        taken_again = owner.delete(f"{path}/{upload_id}")

    assert added.status_code == 201, added.text
    assert added.json() == {"upload_id": upload_id, "added": True, "paper_id": FID}
    assert again.status_code == 200
    assert again.json()["added"] is False
    assert [p["id"] for p in held["papers"]] == [FID]
    assert held["uploads"] == []
    assert taken.status_code == 204
    assert left["papers"] == []
    assert taken_again.status_code == 404


async def test_another_users_upload_the_library_holds_is_a_missing_one(
    uploads_api: Api, linked: tuple[Uploader, Uploader]
) -> None:
    fid, _ = linked
    theirs = fid.upload["id"]
    stranger = uploads_api.key_for(uploads_api.new_user())
    seen: dict[str, list[tuple[int, str]]] = {}

    with uploads_api.client(Authorization=f"Bearer {stranger}") as attacker:
        collection_id = make_collection(attacker, "Mine")
        for target in (theirs, MISSING):
            chat = attacker.post("/api/chat", json={"message": QUESTION, "upload_ids": [target]})
            added = attacker.post(
                f"/api/collections/{collection_id}/uploads", json={"upload_id": target}
            )
            seen[target] = [(r.status_code, r.text.replace(target, "ID")) for r in (chat, added)]
    async with mcp_client(uploads_api, stranger) as mcp:
        asked = {
            target: await mcp.call_tool(
                "ask_uploads", {"question": QUESTION, "upload_ids": [target]}
            )
            for target in (theirs, MISSING)
        }

    assert seen[theirs] == seen[MISSING]
    assert [status for status, _ in seen[theirs]] == [404, 404]
    assert asked[theirs].is_error
    assert error_text(asked[theirs]).replace(theirs, "ID") == error_text(asked[MISSING]).replace(
        MISSING, "ID"
    )
