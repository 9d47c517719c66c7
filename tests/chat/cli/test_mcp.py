"""`paperchat mcp`: the official MCP client starts the command and talks to it over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from chat.wiring import Wiring
from tests.support.data import ROOT
from tests.support.running.cli import environment, run

pytestmark = pytest.mark.timeout(300)

QUESTION = "How does Fusion-in-Decoder combine the retrieved passages?"


@pytest.fixture
def env(small_index_dir: Path, models_cache: Path) -> dict[str, str]:
    return environment(small_index_dir, models_cache)


async def test_the_tools_answer_over_stdio_from_the_local_index(
    env: dict[str, str], small_index: Wiring
) -> None:
    stats = small_index.catalog.stats()
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "chat.cli", "mcp"], env=env, cwd=ROOT
    )

    async with Client(server, read_timeout_seconds=120) as client:
        listed = await client.list_tools()
        found = await client.call_tool("search_papers", {"query": "Fusion-in-Decoder"})
        paper = await client.call_tool("get_paper", {"paper_id": "2007.01282"})
        passages = await client.call_tool("retrieve", {"query": QUESTION, "k": 3})
        answer = await client.call_tool("ask", {"question": QUESTION})
        unknown = await client.call_tool("get_paper", {"paper_id": "9999.99999"})
        page = await client.call_tool("page_annotations", {"paper_id": "2007.01282", "page": 2})

    assert {t.name for t in listed.tools} == {
        "search_papers", "get_paper", "get_references", "get_citations", "related_papers",
        "retrieve", "ask", "compare_papers", "page_annotations",
    }  # fmt: skip
    described = [t for t in listed.tools if t.name != "page_annotations"]
    assert all(f"the {stats['papers']} papers" in (t.description or "") for t in described)
    assert "2007.01282" in [hit["id"] for hit in (found.structured_content or {})["results"]]
    assert (paper.structured_content or {})["id"] == "2007.01282"
    assert len((passages.structured_content or {})["passages"]) == 3
    answered = answer.structured_content or {}
    assert answered["mode"] == "extractive"
    assert "2007.01282" in answered["citations"]
    assert "[arXiv:2007.01282]" in answered["answer"]
    marks = (page.structured_content or {})["citations"]
    assert any("Dense passage retrieval" in ref["title"] for m in marks for ref in m["references"])
    assert unknown.is_error
    assert any("no paper" in c.text for c in unknown.content if isinstance(c, TextContent))


def test_without_an_index_the_command_says_so_in_one_line(tmp_path: Path) -> None:
    env = environment(tmp_path / "nothing-here", tmp_path / "models")

    result = run(env, "mcp", timeout=60)

    assert result.code == 2
    assert result.stderr.startswith("paperchat: error: no index in ")
    assert "paperchat ingest" in result.stderr
    assert result.stdout == ""
