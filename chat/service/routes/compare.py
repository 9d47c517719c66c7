"""`POST /api/compare`: a table comparing papers on aspects, as JSON, a file or a stream.

Each cell comes from its own paper's passages (`chat/rag/compare`) and cites
the chunk it is quoted from (or the paper, for a model's answer); a paper that
does not say holds "not found in the paper" with no citation. `?format=csv`
and `?format=markdown` give the table as a file to save; `Accept:
text/event-stream` streams one `cell` event per cell as it fills, then `done`
(or `error`). Signed in as for `/api/chat`, and counted against the same
budget: one chat request for each paper compared. Filling a table holds one
of the user's stream slots (`PAPERCHAT_MAX_STREAMS_PER_USER`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from chat.rag.answer.llm import UpstreamError
from chat.rag.compare.aspects import (
    DEFAULT_ASPECTS,
    MAX_ASPECT_CHARS,
    MAX_ASPECTS,
    MAX_PAPERS,
    Aspect,
    InvalidAspects,
    aspects_of,
)
from chat.rag.compare.exports import (
    CSV_MEDIA_TYPE,
    MARKDOWN_MEDIA_TYPE,
    as_csv,
    as_markdown,
    file_name,
)
from chat.rag.compare.table import (
    Comparer,
    Filled,
    InvalidPapers,
    Paper,
    PapersNotFound,
    papers_of,
)
from chat.service.routes.deps import (
    ChattingUser,
    PaperId,
    Services,
    ServicesDep,
    api_key_id,
    enforce_chat_limit,
)
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.tables import User
from chat.service.streams import SHUTDOWN_GRACE_S, SSE_HEADERS

logger = logging.getLogger("paperchat.compare")
router = APIRouter(tags=["compare"])

Format = Literal["json", "csv", "markdown"]
_FILES = {
    "csv": (CSV_MEDIA_TYPE, "csv", as_csv),
    "markdown": (MARKDOWN_MEDIA_TYPE, "md", as_markdown),
}
# Ids and aspects a request may write, repeats included (each is compared once).
_MAX_WRITTEN = 100
# The request the document shows: Fusion-in-Decoder and knowledge distillation.
EXAMPLE_REQUEST = {
    "paper_ids": ["2007.01282", "1503.02531"],
    "aspects": ["datasets", "main result"],
}


# Text that is not valid Unicode (a lone surrogate) is refused by the parser already: a 422.
AspectText = Annotated[str, StringConstraints(max_length=MAX_ASPECT_CHARS)]


class CompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paper_ids: list[PaperId] = Field(
        min_length=1,
        max_length=_MAX_WRITTEN,
        description=f"the papers to compare, each once; at most {MAX_PAPERS} distinct "
        "(404 naming those the index does not hold)",
    )
    aspects: list[AspectText] = Field(
        default_factory=list,
        max_length=_MAX_WRITTEN,
        description=f"what to compare them on, each once; at most {MAX_ASPECTS} distinct, "
        f"each at most {MAX_ASPECT_CHARS} characters; none asks for the defaults: "
        f"{', '.join(DEFAULT_ASPECTS)}",
    )


class CellBody(BaseModel):
    text: str = Field(description="what the paper says, or 'not found in the paper'")
    citation: str | None = Field(
        description="the chunk id (or `[arXiv:ID]`) the text comes from; null when not found"
    )


class Row(BaseModel):
    paper_id: str
    title: str
    cells: dict[str, CellBody] = Field(description="one cell per aspect, by the aspect's name")


class Comparison(BaseModel):
    aspects: list[str]
    mode: str = Field(description="`extractive` (quoted) or `llm` (answered by the model)")
    rows: list[Row]


def _table(services: Services, body: CompareRequest) -> tuple[list[Paper], list[Aspect]]:
    """The papers (404 naming the unknown) and aspects (422) of the request."""
    try:
        aspects = aspects_of(body.aspects)
        papers = papers_of(services.index.catalog, body.paper_ids)
    except PapersNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
    except (InvalidAspects, InvalidPapers) as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    return papers, aspects


def _charge(services: Services, user: User, key_id: str | None, papers: int) -> None:
    """Count the rest of the comparison's chat requests, one a paper (the first was counted
    as the request came in); 429 once the budget is spent."""
    for _ in range(papers - 1):
        enforce_chat_limit(services, user, key_id)


@router.post(
    "/api/compare",
    response_model=Comparison,
    openapi_extra={"requestBody": {"content": {"application/json": {"example": EXAMPLE_REQUEST}}}},
    responses={
        200: {
            "content": {"text/csv": {}, "text/markdown": {}, "text/event-stream": {}},
            "description": "the table; a file with `format`; `cell` events then `done` "
            "with `Accept: text/event-stream`",
        },
        **errors(*BODY, *SIGNED_IN, 404, 429),
    },
)
async def compare(
    body: CompareRequest,
    request: Request,
    user: ChattingUser,
    services: ServicesDep,
    format: Annotated[
        Format, Query(description="json, or the table as a csv or markdown file")
    ] = "json",
) -> Any:
    """Compare papers on aspects: one cell per paper and aspect, each citing its passage."""
    papers, aspects = await run_in_threadpool(_table, services, body)
    await run_in_threadpool(_charge, services, user, api_key_id(request), len(papers))
    comparer = Comparer.of(services.index.answerer)
    slot = AsyncExitStack()
    await slot.enter_async_context(services.slots.acquire(user.id))
    if format == "json" and "text/event-stream" in request.headers.get("accept", ""):
        return EventSourceResponse(
            _events(comparer, papers, aspects, slot),
            headers=SSE_HEADERS,
            ping=services.limits.ping_interval_s,
            shutdown_grace_period=SHUTDOWN_GRACE_S,
        )
    async with slot:
        filled = Filled()
        try:
            async for _ in comparer.fill(papers, aspects, filled):
                pass
        except UpstreamError as e:
            raise HTTPException(status.HTTP_502_BAD_GATEWAY, e.public_message) from e
    names = [a.name for a in aspects]
    rows = filled.rows(papers, aspects)
    if format == "json":
        return Comparison(aspects=names, mode=comparer.mode, rows=[Row(**r) for r in rows])
    media_type, extension, write = _FILES[format]
    name = file_name([p.id for p in papers], extension)
    disposition = f'attachment; filename="{name}"'
    return Response(
        write(rows, names), media_type=media_type, headers={"Content-Disposition": disposition}
    )


async def _events(
    comparer: Comparer, papers: Sequence[Paper], aspects: Sequence[Aspect], slot: AsyncExitStack
) -> AsyncIterator[dict[str, str]]:
    """One `cell` event per cell as it fills, then `done` (or `error`); the user's stream
    slot is given back however the stream ends."""
    filled = Filled()
    try:
        async for cell in comparer.fill(papers, aspects, filled):
            yield {"event": "cell", "data": json.dumps(cell.event())}
        done: dict[str, Any] = {
            "mode": comparer.mode,
            "cells": len(filled.cells),
            "dropped_citations": filled.dropped,
        }
        yield {"event": "done", "data": json.dumps(done)}
    except UpstreamError as e:
        failure = {"code": e.code, "message": e.public_message}
        yield {"event": "error", "data": json.dumps(failure)}
    except Exception as e:  # the stream's boundary: an error event, not a broken stream
        logger.exception("comparison stream failed: %s", type(e).__name__)
        failure = {"code": "internal_error", "message": "the comparison failed; try again"}
        yield {"event": "error", "data": json.dumps(failure)}
    finally:
        await slot.aclose()
