"""An OpenAI-compatible endpoint, so OpenAI clients and LangChain can ask the papers.

The request is read by `chat.service.openai.request`. The answer is
OpenAI's chat completion (or its chunk stream) with extra fields: `sources`
(on the first chunk and on the last), `citations` and `dropped_citations` (the
verified citations, and those removed from the text), and `refused` with its
`refusal_reason` when the answer declines. `usage` is the model server's count,
or counted with the embedder's tokenizer when it reports none (extractive
answers too); `stream_options.include_usage` adds OpenAI's last usage chunk
(`choices: []`). API keys only. Errors are OpenAI's `{"error": {...}}`; one
during a stream is sent as an error chunk, which the openai client raises.
A stream always ends with `data: [DONE]`: after its last chunk, or after an
error chunk (a failure, or `shutting_down` when the server stops mid-answer).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import anyio
from fastapi import APIRouter, Request
from pydantic import BaseModel
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from chat.rag.answer.answering import Answerer, Question
from chat.rag.answer.events import Delta, Done, Error, Gathered, Meta, Sources, dispatch, gather
from chat.service.openai.answers import (
    FAILURE_STATUS,
    INTERNAL_ERROR,
    count_failure,
    scope,
    usage_counts,
    verified,
)
from chat.service.openai.errors import OpenAIError, error_body
from chat.service.openai.request import MODEL_ID, CompletionRequest, to_question
from chat.service.routes.deps import (
    ChattingKeyUser,
    KeyUser,
    Services,
    ServicesDep,
    admit,
)
from chat.service.routes.errors import openai_errors
from chat.service.streams import SHUTDOWN_GRACE_S, SHUTTING_DOWN, SSE_HEADERS, until_stopped
from chat.service.uploads.asking import Asked, question_scope, scope_answerer

logger = logging.getLogger("paperchat.openai")
router = APIRouter(tags=["openai"])

# One message of the SSE stream, as sse-starlette sends it.
Message = dict[str, str]
DONE: Message = {"data": "[DONE]"}


class Model(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[Model]


@router.get("/v1/models", responses=openai_errors(401))
def models(_user: KeyUser) -> ModelList:
    return ModelList(data=[Model(id=MODEL_ID, created=0, owned_by="paperchat")])


def _finish(done: Done | None) -> str:
    reason = done.finish_reason if done else "stop"
    return reason if reason in ("stop", "length") else "stop"


def _envelope(completion_id: str, kind: str) -> dict[str, Any]:
    return {
        "id": completion_id,
        "object": kind,
        "created": int(time.time()),
        "model": MODEL_ID,
        "system_fingerprint": None,
    }


# The request the document shows: one question to the one model.
EXAMPLE_REQUEST = {
    "model": MODEL_ID,
    "messages": [{"role": "user", "content": "How does Fusion-in-Decoder read its passages?"}],
}


@router.post(
    "/v1/chat/completions",
    response_model=None,
    responses={
        200: {
            "description": "a chat completion, or with `stream` its chunks as server-sent events",
            "content": {"text/event-stream": {}},
        },
        **openai_errors(400, 401, 404, 413, 429, 502, 503, 504),
    },
    openapi_extra={"requestBody": {"content": {"application/json": {"example": EXAMPLE_REQUEST}}}},
)
async def chat_completions(
    body: CompletionRequest, user: ChattingKeyUser, services: ServicesDep, request: Request
) -> dict[str, Any] | EventSourceResponse:
    """An OpenAI chat completion, or its chunk stream when `stream` is true."""
    if body.model != MODEL_ID:
        message = f"the model {body.model!r} does not exist; this server has one: {MODEL_ID!r}"
        raise OpenAIError(404, message, param="model", code="model_not_found")
    question = to_question(body, services.limits)
    asked = Asked(
        body.paper_ids, body.author, body.collection_id, body.upload_ids, body.with_library
    )
    folder_of = request.app.state.uploads.folder
    scope = await run_in_threadpool(question_scope, services, folder_of, user.id, asked)
    question = replace(question, filters=scope.filters)
    slot = AsyncExitStack()
    await slot.enter_async_context(services.slots.acquire(user.id))
    await admit(slot, services, user.id)
    try:  # its uploads' indexes are closed with the slot, once the answer is sent
        answerer = slot.enter_context(scope_answerer(services.index, scope))
    except BaseException:
        await slot.aclose()
        raise
    if body.stream:
        shutdown = anyio.Event()
        stream = _chunks(services, question, body.include_usage, slot, shutdown, answerer)
        return EventSourceResponse(
            stream,
            headers=SSE_HEADERS,
            ping=services.limits.ping_interval_s,
            shutdown_event=shutdown,
            shutdown_grace_period=SHUTDOWN_GRACE_S,
        )
    async with slot:
        return await _whole(services, question, answerer)


async def _whole(services: Services, question: Question, answerer: Answerer) -> dict[str, Any]:
    gathered = await gather(answerer.answer(question), Gathered())
    if gathered.error is not None:
        count_failure(services, gathered.error)
        status = FAILURE_STATUS.get(gathered.error.code, 502)
        raise OpenAIError(status, gathered.error.message, code=gathered.error.code)
    done, sources = gathered.done, gathered.sources
    if done is None:
        raise OpenAIError(500, INTERNAL_ERROR.message, code=INTERNAL_ERROR.code)
    message: dict[str, Any] = {"role": "assistant", "content": gathered.text, "refusal": None}
    # Whether the papers held no answer, on the message too, where clients read replies.
    message |= {"refused": done.refused, "refusal_reason": done.refusal_reason}
    choice = {"index": 0, "message": message, "finish_reason": _finish(done), "logprobs": None}
    payload = _envelope(f"chatcmpl-{uuid.uuid4().hex}", "chat.completion")
    extra = verified(done, sources) | scope(gathered.found)
    return payload | {"choices": [choice], "usage": usage_counts(done)} | extra


def _error_chunk(event: Error) -> Message:
    """A failure mid-stream as OpenAI sends one: the openai client raises `APIError` on it."""
    body = error_body(500, event.message, code=event.code)
    return {"data": json.dumps(body)}


@dataclass
class _Chunks:
    """Each event of an answer as the messages of OpenAI's chunk stream it makes."""

    services: Services
    include_usage: bool
    completion_id: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")
    sources: list[dict[str, Any]] = field(default_factory=list)

    def chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> Message:
        payload = _envelope(self.completion_id, "chat.completion.chunk")
        payload["choices"] = [
            {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        ]
        if self.include_usage:
            payload["usage"] = None
        return {"data": json.dumps(payload | extra)}

    def on_meta(self, event: Meta) -> list[Message]:
        return []

    def on_sources(self, event: Sources) -> list[Message]:
        self.sources = event.data()["sources"]
        extra = {"sources": self.sources, **scope(event)}
        return [self.chunk({"role": "assistant", "content": ""}, **extra)]

    def on_delta(self, event: Delta) -> list[Message]:
        return [self.chunk({"content": event.text})]

    def on_done(self, event: Done) -> list[Message]:
        messages = [self.chunk({}, _finish(event), **verified(event, self.sources))]
        if self.include_usage:
            usage = _envelope(self.completion_id, "chat.completion.chunk")
            messages.append(
                {"data": json.dumps(usage | {"choices": [], "usage": usage_counts(event)})}
            )
        return [*messages, DONE]

    def on_error(self, event: Error) -> list[Message]:
        if event is not SHUTTING_DOWN:
            count_failure(self.services, event)
        return [_error_chunk(event), DONE]


async def _chunks(
    services: Services,
    question: Question,
    include_usage: bool,
    slot: AsyncExitStack,
    shutdown: anyio.Event,
    answerer: Answerer,
) -> AsyncIterator[Message]:
    """The answer as chunks, ended by `[DONE]` after the last one or after an error chunk
    (a failure, or `shutting_down` when the server stops mid-answer)."""
    chunks = _Chunks(services, include_usage)
    try:
        async with aclosing(answerer.answer(question)) as events:
            async for event in until_stopped(
                events, shutdown, flush_s=services.settings.stream_flush_s
            ):
                for message in dispatch(event, chunks):
                    yield message
    except Exception as e:  # the stream's boundary: the client gets an error chunk
        logger.exception("completion stream failed: %s", type(e).__name__)
        yield _error_chunk(INTERNAL_ERROR)
        yield DONE
    finally:
        await slot.aclose()
