"""`page_annotations` over `/mcp`: the same JSON as the reader's annotations route, over FiD,
DPR and RAG read from their real PDFs, and what it refuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.chat.service.mcp.test_endpoint import error_text, mcp_client, structured
from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import Api, serve_index
from tests.support.worlds.citations import RAG, cited_index_fixture  # noqa: F401 - fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module", name="annotating_api")
def annotating_api_fixture(
    cited_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    database = tmp_path_factory.mktemp("annotating-db") / "paperchat.sqlite"
    yield from serve_index(cited_index, fake_llm, database)


async def test_a_pages_annotations_are_the_json_of_the_route(annotating_api: Api) -> None:
    with annotating_api.client() as client:
        route = client.get(f"/papers/{RAG}/pages/3/annotations").json()

    async with mcp_client(annotating_api) as mcp:
        result = await mcp.call_tool("page_annotations", {"paper_id": f"arXiv:{RAG}", "page": 3})

    tool = structured(result)
    assert tool == route
    assert [t["term"] for t in tool["definitions"]][:1] == ["RAG"]
    assert tool["citations"]


async def test_a_page_the_pdf_lacks_and_an_unknown_paper_are_tool_errors(
    annotating_api: Api,
) -> None:
    async with mcp_client(annotating_api) as mcp:
        past = await mcp.call_tool("page_annotations", {"paper_id": RAG, "page": 400})
        unknown = await mcp.call_tool("page_annotations", {"paper_id": "9999.99999", "page": 1})

    assert past.is_error
    assert "has pages 1 to 19, not 400" in error_text(past)
    assert unknown.is_error
    assert "no paper '9999.99999' in the library" in error_text(unknown)
