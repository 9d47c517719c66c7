"""The tools of questions that keep watch over `/mcp`: each acts for the API key's owner
only; a question saved there is the one `/api/watches` lists, and no other user's is ever
listed."""

from __future__ import annotations

import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(300)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"


async def test_a_question_saved_over_mcp_is_listed_there_and_by_the_api(api: Api) -> None:
    email = api.new_user()
    with api.key_client(email) as client:
        collection_id = make_collection(client, "Readers", "2007.01282")

    async with mcp_client(api, api.key_for(email)) as mcp:
        whole = await mcp.call_tool("keep_watch", {"question": f"  {FID} "})
        within = await mcp.call_tool(
            "keep_watch", {"question": FID, "collection_id": collection_id}
        )
        listed = await mcp.call_tool("watches", {})
    with api.key_client(email) as client:
        by_api = client.get("/api/watches").json()["watches"]

    saved = [structured(whole), structured(within)]
    assert [(w["question"], w["collection_id"]) for w in saved] == [
        (FID, None),
        (FID, collection_id),
    ]
    assert structured(listed)["watches"] == saved
    assert [w["id"] for w in by_api] == [w["id"] for w in saved]
    assert by_api[1]["scope"]["collection_id"] == collection_id


async def test_another_users_collection_or_a_blank_question_is_a_tool_error(api: Api) -> None:
    with api.key_client() as owner:
        theirs = make_collection(owner, "Theirs", "2007.01282")
        owner.post("/api/watches", json={"question": FID})

    async with mcp_client(api) as attacker:
        blank = await attacker.call_tool("keep_watch", {"question": " \n"})
        borrowed = await attacker.call_tool(
            "keep_watch", {"question": FID, "collection_id": theirs}
        )
        listed = await attacker.call_tool("watches", {})

    assert blank.is_error
    assert "empty" in error_text(blank)
    assert borrowed.is_error
    assert f"no collection {theirs!r}" in error_text(borrowed)
    assert structured(listed) == {"watches": []}
