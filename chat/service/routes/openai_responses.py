"""`POST /v1/responses`: OpenAI's Responses API over the papers, for the clients and agent
frameworks that speak it (the `openai` client's `responses.create` and `responses.stream`,
LangChain's `ChatOpenAI(use_responses_api=True)`).

The request and the response object are `chat.service.openai.responses`. The answer is
the one `/v1/chat/completions` gives, from the same scope (papers, a collection, the key
owner's uploads: `chat.service.uploads.asking`), with the same sources and checked
citations. Streamed, it is the Responses API's events: `response.created`,
`response.in_progress` (with the `sources` once retrieved), `response.output_item.added`,
`response.content_part.added`, many `response.output_text.delta`,
`response.output_text.done`, `response.content_part.done`, `response.output_item.done` and
`response.completed`; a failure is `response.failed` then an `error` event (the openai
client raises it). A stored response (`store`, true by default) is kept as a turn of the
user's conversations, which `previous_response_id` continues. API keys only; errors in
OpenAI's shape.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
from fastapi import APIRouter, HTTPException, Request
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from chat.rag.answer.answering import Answerer, Question, Turn
from chat.rag.answer.events import Delta, Done, Error, Gathered, Meta, Sources, dispatch, gather
from chat.service.openai.answers import (
    FAILURE_STATUS,
    INTERNAL_ERROR,
    count_failure,
    scope,
    usage_counts,
    verified,
)
from chat.service.openai.errors import OpenAIError, error_body, invalid_request
from chat.service.openai.request import MODEL_ID
from chat.service.openai.responses import (
    MESSAGE_PREFIX,
    RESPONSE_PREFIX,
    ResponseRequest,
    citation_notes,
    output_message,
    output_text,
    response_object,
    to_question,
    usage,
)
from chat.service.routes.deps import (
    ChattingKeyUser,
    Services,
    ServicesDep,
    admit,
    check_question,
)
from chat.service.routes.errors import openai_errors
from chat.service.storage.responses import response_turns, save_response
from chat.service.streams import SHUTDOWN_GRACE_S, SHUTTING_DOWN, SSE_HEADERS, until_stopped
from chat.service.uploads.asking import Asked, question_scope, scope_answerer

logger = logging.getLogger("paperchat.openai")
router = APIRouter(tags=["openai"])

Message = dict[str, str]
EXAMPLE_REQUEST = {"model": MODEL_ID, "input": "How does Fusion-in-Decoder read its passages?"}


@dataclass
class _Turn:
    """One response: its request, its ids, and what is saved of it once answered."""

    services: Services
    user_id: str
    body: ResponseRequest
    question: Question
    conversation_id: str | None
    answerer: Answerer
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def response_id(self) -> str:
        return f"{RESPONSE_PREFIX}{self.key}"

    @property
    def item_id(self) -> str:
        return f"{MESSAGE_PREFIX}{self.key}"

    def finished(self, text: str, done: Done, sources: list[dict[str, Any]]) -> dict[str, Any]:
        """The completed response object."""
        cited = list(done.data()["citations"])
        part = output_text(text, citation_notes(text, sources, cited))
        return response_object(
            self.response_id,
            self.body,
            "completed",
            output=[output_message(self.item_id, [part], "completed")],
            usage=usage(usage_counts(done)),
            **verified(done, sources),
        )

    def save(self, text: str, done: Done, sources: list[dict[str, Any]]) -> None:
        """Keep the answer as a turn of the user's conversation, unless `store` is false."""
        if not self.body.store:
            return
        answerer = self.answerer
        with self.services.sessions() as session:
            save_response(
                session,
                self.user_id,
                self.conversation_id,
                self.question.text,
                self.key,
                content=text,
                sources=sources,
                citations=list(done.data()["citations"]),
                usage=done.usage,
                mode=answerer.mode,
                model=answerer.model_name or None,
            )


def _earlier(services: Services, user_id: str, response_id: str) -> tuple[str, tuple[Turn, ...]]:
    """The conversation `previous_response_id` names and its turns; 404 for any id that is
    not one of the user's stored responses."""
    key = response_id.removeprefix(RESPONSE_PREFIX)
    with services.sessions() as session:
        found = response_turns(session, user_id, key) if key != response_id else None
    if found is None:
        message = f"no response {response_id!r}: not stored, or another user's"
        raise OpenAIError(404, message, param="previous_response_id", code="not_found")
    conversation_id, turns = found
    return conversation_id, tuple(Turn(role, text) for role, text in turns)


@router.post(
    "/v1/responses",
    response_model=None,
    responses={
        200: {
            "description": "a response, or with `stream` its events as server-sent events",
            "content": {"text/event-stream": {}},
        },
        **openai_errors(400, 401, 404, 413, 429, 502, 503, 504),
    },
    openapi_extra={"requestBody": {"content": {"application/json": {"example": EXAMPLE_REQUEST}}}},
)
async def create_response(
    body: ResponseRequest, user: ChattingKeyUser, services: ServicesDep, request: Request
) -> dict[str, Any] | EventSourceResponse:
    """An OpenAI response, or its events when `stream` is true."""
    if body.model != MODEL_ID:
        message = f"the model {body.model!r} does not exist; this server has one: {MODEL_ID!r}"
        raise OpenAIError(404, message, param="model", code="model_not_found")
    conversation_id: str | None = None
    earlier: tuple[Turn, ...] = ()
    if body.previous_response_id:
        found = await run_in_threadpool(_earlier, services, user.id, body.previous_response_id)
        conversation_id, earlier = found
    question = to_question(body, earlier)
    try:
        check_question(question.text, services.limits)
    except HTTPException as e:
        raise invalid_request(str(e.detail), "input") from e
    asked = Asked(
        body.paper_ids, body.author, body.collection_id, body.upload_ids, body.with_library
    )
    folder_of = request.app.state.uploads.folder
    scope = await run_in_threadpool(question_scope, services, folder_of, user.id, asked)
    slot = AsyncExitStack()
    await slot.enter_async_context(services.slots.acquire(user.id))
    await admit(slot, services, user.id)
    try:  # its uploads' indexes are closed with the slot, once the answer is sent
        answerer = slot.enter_context(scope_answerer(services.index, scope))
    except BaseException:
        await slot.aclose()
        raise
    question = replace(question, filters=scope.filters)
    turn = _Turn(services, user.id, body, question, conversation_id, answerer)
    if body.stream:
        shutdown = anyio.Event()
        return EventSourceResponse(
            _stream(turn, slot, shutdown),
            headers=SSE_HEADERS,
            ping=services.limits.ping_interval_s,
            shutdown_event=shutdown,
            shutdown_grace_period=SHUTDOWN_GRACE_S,
        )
    async with slot:
        return await _whole(turn)


async def _whole(turn: _Turn) -> dict[str, Any]:
    services = turn.services
    gathered = await gather(turn.answerer.answer(turn.question), Gathered())
    if gathered.error is not None:
        count_failure(services, gathered.error)
        status = FAILURE_STATUS.get(gathered.error.code, 502)
        raise OpenAIError(status, gathered.error.message, code=gathered.error.code)
    if gathered.done is None:
        raise OpenAIError(500, INTERNAL_ERROR.message, code=INTERNAL_ERROR.code)
    await run_in_threadpool(turn.save, gathered.text, gathered.done, gathered.sources)
    return turn.finished(gathered.text, gathered.done, gathered.sources) | scope(gathered.found)


@dataclass
class _Events:
    """Each event of an answer as the Responses API's stream events, numbered in order."""

    turn: _Turn
    sequence: int = 0
    text: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    opened: bool = False

    def send(self, kind: str, **fields: Any) -> Message:
        payload = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return {"event": kind, "data": json.dumps(payload)}

    def snapshot(self, status: str, **fields: Any) -> dict[str, Any]:
        return response_object(self.turn.response_id, self.turn.body, status, **fields)

    def where(self) -> dict[str, Any]:
        return {"item_id": self.turn.item_id, "output_index": 0, "content_index": 0}

    def created(self) -> list[Message]:
        return [self.send("response.created", response=self.snapshot("in_progress"))]

    def open(self) -> list[Message]:
        """The output message and its text part, announced once, before any text."""
        if self.opened:
            return []
        self.opened = True
        item = output_message(self.turn.item_id, [], "in_progress")
        return [
            self.send("response.output_item.added", output_index=0, item=item),
            self.send("response.content_part.added", **self.where(), part=output_text("")),
        ]

    def on_meta(self, event: Meta) -> list[Message]:
        return []

    def on_sources(self, event: Sources) -> list[Message]:
        self.sources = event.data()["sources"]
        extra = {"sources": self.sources, **scope(event)}
        return [self.send("response.in_progress", response=self.snapshot("in_progress", **extra))]

    def on_delta(self, event: Delta) -> list[Message]:
        self.text += event.text
        delta = self.send(
            "response.output_text.delta", **self.where(), delta=event.text, logprobs=[]
        )
        return [*self.open(), delta]

    def on_done(self, event: Done) -> list[Message]:
        final = self.turn.finished(self.text, event, self.sources)
        (item,) = final["output"]
        (part,) = item["content"]
        return [
            *self.open(),
            self.send("response.output_text.done", **self.where(), text=self.text, logprobs=[]),
            self.send("response.content_part.done", **self.where(), part=part),
            self.send("response.output_item.done", output_index=0, item=item),
            self.send("response.completed", response=final),
        ]

    def on_error(self, event: Error) -> list[Message]:
        if event is not SHUTTING_DOWN:
            count_failure(self.turn.services, event)
        return self.failed(event)

    def failed(self, event: Error) -> list[Message]:
        error = {"code": event.code, "message": event.message}
        failed = self.send("response.failed", response=self.snapshot("failed", error=error))
        # The `error` object is what the openai client raises a stream's failure from.
        body = error_body(500, event.message, code=event.code)
        return [failed, self.send("error", **error, param=None, **body)]


async def _stream(
    turn: _Turn, slot: AsyncExitStack, shutdown: anyio.Event
) -> AsyncIterator[Message]:
    """The response's events; the answer saved once it is done."""
    events = _Events(turn)
    try:
        for message in events.created():
            yield message
        async with aclosing(turn.answerer.answer(turn.question)) as answer:
            async for event in until_stopped(
                answer, shutdown, flush_s=turn.services.settings.stream_flush_s
            ):
                if isinstance(event, Done):
                    await run_in_threadpool(turn.save, events.text, event, events.sources)
                for message in dispatch(event, events):
                    yield message
    except Exception as e:  # the stream's boundary: the client gets a failed response
        logger.exception("response stream failed: %s", type(e).__name__)
        for message in events.failed(INTERNAL_ERROR):
            yield message
    finally:
        await slot.aclose()
