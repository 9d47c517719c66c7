"""The MCP tools show the caller their own uploads: `uploads` lists them (how reading went,
their pages, their doc id or the library's paper they are) and `collection_papers` a
collection's, for its owner; another user sees none of them."""

from __future__ import annotations

import pytest

from tests.chat.service.mcp.test_endpoint import mcp_client, structured
from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.uploads.conftest import (  # noqa: F401 - fixtures by name
    LIBRARY_PDF,
    Uploader,
    two_uploads_fixture,
    upload,
    uploads_api_fixture,
)
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(900)

FID = "2007.01282"


async def test_uploads_lists_the_callers_uploads_and_no_one_elses(uploads_api: Api) -> None:
    key = uploads_api.key_for(uploads_api.new_user())
    with uploads_api.client(Authorization=f"Bearer {key}") as owner:
        made = upload(owner, LIBRARY_PDF, "fid.pdf")

    async with mcp_client(uploads_api, key) as mcp:
        mine = await mcp.call_tool("uploads", {})
    async with mcp_client(uploads_api) as stranger:
        theirs = await stranger.call_tool("uploads", {})

    assert structured(mine)["uploads"] == [
        {
            "id": made["id"],
            "filename": "fid.pdf",
            "title": made["title"],
            "status": "ready",
            "reason": None,
            "pages": made["pages"],
            "doc_id": None,
            "library_id": FID,
        }
    ]
    assert made["pages"] > 0
    assert structured(theirs) == {"uploads": []}


async def test_uploads_gives_the_doc_ids_ask_uploads_cites(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, survey = two_uploads

    async with mcp_client(uploads_api, norm.key) as mcp:
        listed = await mcp.call_tool("uploads", {})

    found = {u["id"]: u for u in structured(listed)["uploads"]}
    for one in (norm, survey):
        assert found[one.upload["id"]]["doc_id"] == one.doc_id
        assert found[one.upload["id"]]["library_id"] is None
        assert found[one.upload["id"]]["status"] == "ready"
        assert found[one.upload["id"]]["pages"] == one.upload["pages"]


async def test_collection_papers_lists_the_owners_uploads_in_it(
    uploads_api: Api, two_uploads: tuple[Uploader, Uploader]
) -> None:
    norm, _ = two_uploads
    with norm.client(uploads_api) as owner:
        collection_id = make_collection(owner, "Normalisation", FID)
        added = owner.post(
            f"/api/collections/{collection_id}/uploads", json={"upload_id": norm.upload["id"]}
        )
        assert added.status_code == 201, added.text

    async with mcp_client(uploads_api, norm.key) as mcp:
        held = await mcp.call_tool("collection_papers", {"collection_id": collection_id})

    answer = structured(held)
    assert [p["id"] for p in answer["papers"]] == [FID]
    assert answer["uploads"] == [
        {
            "id": norm.upload["id"],
            "doc_id": norm.doc_id,
            "title": norm.upload["title"],
            "filename": "mine.pdf",
        }
    ]
