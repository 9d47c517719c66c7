"""The note tools over `/mcp`: each acts for the API key's owner only; a note added there is
the one `/api/notes` lists, and no other user's note is ever listed."""

from __future__ import annotations

import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(300)

MISSING = "00000000-0000-4000-8000-000000000000"


async def test_a_note_added_over_mcp_is_listed_there_and_by_the_api(api: Api) -> None:
    email = api.new_user()
    with api.key_client(email) as client:
        client.post("/api/notes", json={"paper_id": "1503.02531", "text": "Soft targets help."})
        collection_id = make_collection(client, "Distillation", "1503.02531")

    async with mcp_client(api, api.key_for(email)) as mcp:
        added = await mcp.call_tool(
            "add_note", {"paper_id": "arXiv:2007.01282", "text": "  Reader to retriever.  "}
        )
        every = await mcp.call_tool("notes", {})
        on_paper = await mcp.call_tool("notes", {"paper_id": "2007.01282"})
        in_collection = await mcp.call_tool("notes", {"collection_id": collection_id})
        with_words = await mcp.call_tool("notes", {"words": "SOFT targets"})
    with api.key_client(email) as client:
        listed = client.get("/api/notes", params={"paper_id": "2007.01282"}).json()["notes"]

    note = structured(added)
    assert (note["paper_id"], note["text"], note["page"]) == (
        "2007.01282",
        "Reader to retriever.",
        None,
    )
    assert [n["text"] for n in structured(every)["notes"]] == [
        "Soft targets help.",
        "Reader to retriever.",
    ]
    assert [n["id"] for n in structured(on_paper)["notes"]] == [note["id"]]
    assert [n["paper_id"] for n in structured(in_collection)["notes"]] == ["1503.02531"]
    assert [n["text"] for n in structured(with_words)["notes"]] == ["Soft targets help."]
    assert [(n["id"], n["text"]) for n in listed] == [(note["id"], "Reader to retriever.")]


async def test_a_blank_note_or_an_unknown_paper_is_a_tool_error_and_keeps_nothing(
    api: Api,
) -> None:
    email = api.new_user()

    async with mcp_client(api, api.key_for(email)) as mcp:
        blank = await mcp.call_tool("add_note", {"paper_id": "2007.01282", "text": " \u202e\n"})
        unknown = await mcp.call_tool("add_note", {"paper_id": "9999.99999", "text": "Hm."})
        listed = await mcp.call_tool("notes", {})

    assert blank.is_error
    assert "blank" in error_text(blank)
    assert unknown.is_error
    assert "no paper '9999.99999' in the index" in error_text(unknown)
    assert structured(listed) == {"notes": []}


async def test_another_users_notes_are_never_listed(api: Api) -> None:
    with api.key_client() as owner:
        owner.post("/api/notes", json={"paper_id": "2007.01282", "text": "Mine alone."})
        collection_id = make_collection(owner, "Private", "2007.01282")

    async with mcp_client(api) as attacker:
        every = await attacker.call_tool("notes", {})
        on_paper = await attacker.call_tool("notes", {"paper_id": "2007.01282"})
        by_words = await attacker.call_tool("notes", {"words": "alone"})
        theirs = await attacker.call_tool("notes", {"collection_id": collection_id})
        missing = await attacker.call_tool("notes", {"collection_id": MISSING})

    assert structured(every) == structured(on_paper) == structured(by_words) == {"notes": []}
    assert theirs.is_error
    assert error_text(theirs).replace(collection_id, "ID") == error_text(missing).replace(
        MISSING, "ID"
    )
