"""The MCP tool that gives what a reader may draw over a page of a paper's PDF: the JSON of
`GET /papers/{id}/pages/{n}/annotations`, read through the same kept annotations."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from chat.service.mcp.tools import READ_ONLY, PaperId
from chat.service.web.papers.annotations import Annotations, PageAnnotations
from ingest.errors import PaperchatError
from ingest.index.records import normalise_paper_id

PageNumber = Annotated[int, Field(ge=1, le=10_000, description="the page, 1 for the first")]
DESCRIPTION = (
    "What a reader may draw over one page of a paper's PDF: its in-text citation marks (text, "
    "form, boxes as fractions of the page from its top left, and the references each names "
    "as printed, with the paper of this index a reference names, or null) and the terms the "
    "paper defines that the page uses (term, definition, the page and boxes of the "
    "definition, each use with its boxes), the sentences of the index's papers citing this "
    "one that speak of the page (discussions), and the page's sentences that state the "
    "paper's goal, method, results or limitations, with their boxes (skim). A paper without "
    "a PDF here, an unknown id or a page the PDF does not have is an error."
)


class AnnotationTools:
    def __init__(self, annotations: Annotations) -> None:
        self.annotations = annotations

    async def page_annotations(self, paper_id: PaperId, page: PageNumber) -> PageAnnotations:
        try:
            wanted = normalise_paper_id(paper_id)
            return await run_in_threadpool(self.annotations.page, wanted, page, _uncounted)
        except PaperchatError as e:
            raise ToolError(str(e)) from e


def _uncounted() -> None:
    """A tool call counts against its key's budget already, not against the page renders."""


def add_annotation_tools(server: MCPServer[Any], annotations: Annotations) -> None:
    """Register `page_annotations` on `server` (the one `/mcp` serves, or `paperchat mcp`'s)."""
    tools = AnnotationTools(annotations)
    server.add_tool(
        tools.page_annotations,
        name="page_annotations",
        description=DESCRIPTION,
        annotations=READ_ONLY,
    )
