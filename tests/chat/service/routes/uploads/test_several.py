"""Asking several uploads at once, and uploads beside the library (`upload_ids` with
`paper_ids`, or `with_library`), on `/api/chat`, `/v1` and MCP: each index is searched
alone and the passages merged, so one answer cites both kinds (`[doc:<id>]` and
`[arXiv:<id>]`); another user's upload anywhere in the list is a 404 that says no more
than a missing one's."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    Uploader,
    ask_chat,
    citation,
    source_ids,
    two_uploads_fixture,
    uploaders_fixture,
    uploads_api_fixture,
)
from tests.fakes.openai import ChatScript
from tests.support.running.server import Api, SseEvent

pytestmark = pytest.mark.timeout(900)

MISSING = "00000000-0000-4000-8000-000000000000"
FID = "2007.01282"
BOTH = (
    "How does batch normalization reduce internal covariate shift, and how many of the "
    "surveyed papers on long-form summaries ran a statistical analysis of human evaluation?"
)
MIXED = (
    "How does Fusion-in-Decoder combine the retrieved passages, and how does batch "
    "normalization reduce internal covariate shift?"
)


def _text(events: list[SseEvent]) -> str:
    return "".join(e.data["text"] for e in events if e.name == "delta")


def test_an_answer_cites_two_uploads_at_once(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, survey = two_uploads
    cited = (
        f"Mini-batch statistics {citation(norm.doc_id)}",
        f"; 12 papers {citation(survey.doc_id)}.",
    )
    uploads_api.fake.default_script = ChatScript(pieces=cited)
    body = {"message": BOTH, "upload_ids": [norm.upload["id"], survey.upload["id"]]}

    with norm.client(uploads_api) as owner:
        status, events = ask_chat(owner, body)

    done = events[-1]
    assert status == 200
    assert source_ids(events) == {norm.doc_id, survey.doc_id}
    assert done.name == "done", done.data
    assert sorted(done.data["citations"]) == sorted([norm.doc_id, survey.doc_id])
    assert done.data["dropped_citations"] == []
    assert _text(events) == "".join(cited)


def test_an_answer_mixes_a_library_paper_and_an_upload(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    cited = (f"It reads them all in the decoder [arXiv:{FID}]", f" and {citation(norm.doc_id)}.")
    uploads_api.fake.default_script = ChatScript(pieces=cited)
    body = {"message": MIXED, "upload_ids": [norm.upload["id"]], "paper_ids": [FID]}

    with norm.client(uploads_api) as owner:
        status, events = ask_chat(owner, body)

    done = events[-1]
    assert status == 200
    assert source_ids(events) == {FID, norm.doc_id}
    assert done.name == "done", done.data
    assert sorted(done.data["citations"]) == sorted([FID, norm.doc_id])
    assert done.data["dropped_citations"] == []


def test_uploads_alone_are_asked_alone_and_with_library_adds_the_whole_library(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    uploads_api.fake.default_script = ChatScript(pieces=("Fine.",))
    alone = {"message": MIXED, "upload_ids": [norm.upload["id"]]}

    with norm.client(uploads_api) as owner:
        _, by_itself = ask_chat(owner, alone)
        _, beside = ask_chat(owner, alone | {"with_library": True})

    assert source_ids(by_itself) == {norm.doc_id}
    assert norm.doc_id in source_ids(beside)
    assert FID in source_ids(beside)


def _refusals(client: httpx.Client, lists: list[list[str]]) -> list[tuple[str, int, str]]:
    """Each list asked on `/api/chat` and `/v1`: (where, status, body with ids hidden)."""
    found = []
    for ids in lists:
        chat = client.post("/api/chat", json={"message": MIXED, "upload_ids": ids})
        v1 = client.post(
            "/v1/chat/completions",
            json={
                "model": "paperchat",
                "messages": [{"role": "user", "content": MIXED}],
                "upload_ids": ids,
                "paper_ids": [FID],
            },
        )
        for where, answered in (("chat", chat), ("v1", v1)):
            text = answered.text
            for upload_id in ids:
                text = text.replace(upload_id, "ID")
            found.append((where, answered.status_code, text))
    return found


def test_another_users_upload_anywhere_in_the_list_is_a_missing_one(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader], two_uploads: tuple[Uploader, Uploader]
) -> None:
    _, victim = uploaders
    norm, survey = two_uploads
    mine, theirs = [norm.upload["id"], survey.upload["id"]], victim.upload["id"]

    with norm.client(uploads_api) as attacker:
        against = _refusals(attacker, [[theirs, *mine], [mine[0], theirs, mine[1]]])
        nothing = _refusals(attacker, [[MISSING, *mine], [mine[0], MISSING, mine[1]]])

    assert against == nothing
    assert {status for _, status, _ in against} == {404}
    assert not any(victim.doc_id in text or victim.upload["title"] in text for *_, text in against)


def test_v1_answers_from_two_uploads_and_a_library_paper(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, survey = two_uploads
    cited = f"[arXiv:{FID}] {citation(norm.doc_id)} {citation(survey.doc_id)}"
    uploads_api.fake.default_script = ChatScript(pieces=(cited,))
    body = {
        "model": "paperchat",
        "messages": [{"role": "user", "content": BOTH}],
        "upload_ids": [norm.upload["id"], survey.upload["id"]],
        "paper_ids": [FID],
    }

    with norm.client(uploads_api) as owner:
        answered = owner.post("/v1/chat/completions", json=body)

    assert answered.status_code == 200, answered.text
    assert {s["id"] for s in answered.json()["sources"]} == {FID, norm.doc_id, survey.doc_id}
    assert sorted(answered.json()["citations"]) == sorted([FID, norm.doc_id, survey.doc_id])


async def test_mcp_asks_uploads_beside_the_library_and_no_one_elses(
    uploads_api: Api, uploaders: tuple[Uploader, Uploader], two_uploads: tuple[Uploader, Uploader]
) -> None:
    _, victim = uploaders
    norm, survey = two_uploads
    mine = [norm.upload["id"], survey.upload["id"]]
    uploads_api.fake.default_script = ChatScript(pieces=(f"{citation(survey.doc_id)}",))

    async with mcp_client(uploads_api, norm.key) as mcp:
        asked = await mcp.call_tool("ask_uploads", {"question": BOTH, "upload_ids": mine})
        beside = await mcp.call_tool(
            "ask_uploads", {"question": MIXED, "upload_ids": mine[:1], "with_library": True}
        )
        theirs = await mcp.call_tool(
            "ask_uploads", {"question": BOTH, "upload_ids": [*mine, victim.upload["id"]]}
        )
        missing = await mcp.call_tool(
            "ask_uploads", {"question": BOTH, "upload_ids": [*mine, MISSING]}
        )

    assert {s["id"] for s in structured(asked)["sources"]} == {norm.doc_id, survey.doc_id}
    assert structured(asked)["citations"] == [survey.doc_id]
    assert {norm.doc_id, FID} <= {s["id"] for s in structured(beside)["sources"]}
    assert theirs.is_error
    assert missing.is_error
    assert error_text(theirs).replace(victim.upload["id"], "ID") == error_text(missing).replace(
        MISSING, "ID"
    )


def test_a_follow_up_keeps_to_the_library_paper_and_the_upload_the_answer_cited(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    cited = f"In the decoder [arXiv:{FID}], over mini-batches {citation(norm.doc_id)}."
    uploads_api.fake.default_script = ChatScript(pieces=(cited,))
    body = {"message": MIXED, "upload_ids": [norm.upload["id"]], "with_library": True}

    with norm.client(uploads_api) as owner:
        _, first = ask_chat(owner, body)
        conversation = first[0].data["conversation_id"]
        follow_up = body | {
            "message": "How fast do these papers train their models?",
            "conversation_id": conversation,
        }
        _, then = ask_chat(owner, follow_up)

    scope = next(e for e in then if e.name == "sources").data["scope"]
    assert sorted(scope["paper_ids"]) == sorted([FID, norm.doc_id])
    assert source_ids(then) <= {FID, norm.doc_id}
    assert norm.doc_id in source_ids(then)
