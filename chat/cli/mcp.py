"""`paperchat mcp`: the MCP tools over stdio, for an agent that starts paperchat itself.

Claude Desktop, Cursor and other MCP clients start the command and speak
JSON-RPC on its stdin and stdout; it reads the local index of the data dir
(no server, no account). Anything else it says goes to stderr.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from chat.cli.main import CommandError, data_dir_option, settings_for


@click.command("mcp")
@data_dir_option
def mcp(data_dir: Path | None) -> None:
    """Serve the MCP tools (search_papers, get_paper, retrieve, ask, page_annotations) over
    stdio."""
    import anyio

    from chat.service.mcp.annotations import add_annotation_tools
    from chat.service.mcp.tools import build_server
    from chat.service.web.papers.annotations import Annotations
    from chat.service.web.papers.pdfpages import PdfPages
    from chat.wiring import Wiring
    from ingest.pdf.store import PdfStore

    settings = settings_for(data_dir)
    if not settings.shared_catalog and not settings.catalog_path.is_file():
        raise CommandError(
            f"no index in {str(settings.data_dir)!r}: run 'paperchat ingest' first, "
            "or give --data-dir"
        )
    wiring = Wiring(settings)
    pdf_pages = PdfPages(lambda: wiring.catalog, store=PdfStore(settings.pdf_store_path))
    # stdout is the protocol's: whatever loading the index prints goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        server = build_server(wiring, settings.max_question_chars)
        add_annotation_tools(server, Annotations(pdf_pages, lambda: wiring.catalog))
        answerer = wiring.answerer  # the embedder and the indexes, loaded before the first call

    async def serve() -> None:
        try:
            await server.run_stdio_async()
        finally:
            await answerer.aclose()

    try:
        anyio.run(serve)
    finally:
        pdf_pages.close()
        wiring.close()
