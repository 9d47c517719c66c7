"""The collection tools over `/mcp`: each acts for the API key's owner only; another user's
collection is an error naming no more than a missing one does."""

from __future__ import annotations

import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(300)

FID = "How does Fusion-in-Decoder combine the retrieved passages?"
MISSING = "00000000-0000-4000-8000-000000000000"


async def test_a_collection_is_listed_read_and_filled_by_its_owner(api: Api) -> None:
    email = api.new_user()
    key = api.key_for(email)
    with api.key_client(email) as client:
        collection_id = make_collection(client, "Distillation", "1503.02531")

    async with mcp_client(api, key) as mcp:
        listed = await mcp.call_tool("collections", {})
        added = await mcp.call_tool(
            "add_to_collection", {"collection_id": collection_id, "paper_id": "arXiv:2007.01282"}
        )
        again = await mcp.call_tool(
            "add_to_collection", {"collection_id": collection_id, "paper_id": "2007.01282"}
        )
        unknown = await mcp.call_tool(
            "add_to_collection", {"collection_id": collection_id, "paper_id": "9999.99999"}
        )
        papers = await mcp.call_tool("collection_papers", {"collection_id": collection_id})

    assert structured(listed)["collections"] == [
        {"id": collection_id, "name": "Distillation", "papers": 1}
    ]
    assert structured(added) == {"paper_id": "2007.01282", "added": True}
    assert structured(again)["added"] is False
    assert unknown.is_error
    assert "no paper '9999.99999' in the index" in error_text(unknown)
    assert [p["id"] for p in structured(papers)["papers"]] == ["1503.02531", "2007.01282"]


async def test_ask_collection_answers_from_the_collections_papers_only(api: Api) -> None:
    email = api.new_user()
    with api.key_client(email) as client:
        collection_id = make_collection(client, "Not FiD", "1503.02531", "1812.06145")

    async with mcp_client(api, api.key_for(email)) as mcp:
        result = await mcp.call_tool(
            "ask_collection", {"question": FID, "collection_id": collection_id}
        )

    sources = {s["id"] for s in structured(result)["sources"]}
    assert sources
    assert sources <= {"1503.02531", "1812.06145"}


async def test_another_users_collection_is_an_error_as_a_missing_one_is(api: Api) -> None:
    with api.key_client() as owner:
        collection_id = make_collection(owner, "Private", "2007.01282")
    calls = {
        "collection_papers": {},
        "add_to_collection": {"paper_id": "1503.02531"},
        "ask_collection": {"question": FID},
    }

    async with mcp_client(api) as attacker:
        listed = await attacker.call_tool("collections", {})
        seen = {}
        for name, arguments in calls.items():
            for target in (collection_id, MISSING):
                result = await attacker.call_tool(name, {**arguments, "collection_id": target})
                seen[name, target == MISSING] = (
                    result.is_error,
                    error_text(result).replace(target, "ID"),
                )

    assert structured(listed) == {"collections": []}
    for name in calls:
        assert seen[name, False] == seen[name, True]
        assert seen[name, False] == (True, f"Error executing tool {name}: no collection 'ID'")
    with api.client() as anyone:
        assert anyone.get(f"/api/collections/{collection_id}").status_code == 401
