"""An OpenAI-compatible endpoint, so OpenAI clients and LangChain can ask the papers.

The last user message is the question and the earlier ones its history;
`paper_ids` and `author` (extra fields) restrict the sources, which come back in an
extra `sources` field (on the first chunk when streaming). API keys only.
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
from dataclasses import replace
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from chat.rag.answering import Question, Turn
from chat.rag.events import Delta, Done, Error, Sources
from chat.service.routes.chat import (
    SHUTDOWN_GRACE_S,
    SHUTTING_DOWN,
    SSE_HEADERS,
    AuthorName,
    PaperId,
    request_filters,
    until_shutdown,
)
from chat.service.routes.deps import (
    ChattingKeyUser,
    KeyUser,
    Limits,
    Services,
    ServicesDep,
    check_question,
    readable_text,
)
from chat.service.routes.errors import BODY, errors

logger = logging.getLogger("paperchat.openai")
router = APIRouter(tags=["openai"])

MODEL_ID = "paperchat"
DONE = {"data": "[DONE]"}


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[str | list[dict[str, Any]] | None, BeforeValidator(readable_text)] = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class CompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = MODEL_ID
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    paper_ids: list[PaperId] = Field(default_factory=list, max_length=50)
    author: AuthorName | None = Field(
        default=None, description="only this author's papers (404 when unknown)"
    )


class Model(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[Model]


@router.get("/v1/models", responses=errors(401))
def models(_user: KeyUser) -> ModelList:
    return ModelList(data=[Model(id=MODEL_ID, created=0, owned_by="paperchat")])


def to_question(body: CompletionRequest, limits: Limits) -> Question:
    """The last message (a user's) as the question; earlier user and assistant turns as history."""
    last = body.messages[-1]
    text = last.text().strip()
    if last.role != "user" or not text:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, "the last message must be a user's question"
        )
    check_question(text, limits)
    earlier = [m for m in body.messages[:-1] if m.role in ("user", "assistant") and m.text()]
    history = tuple(Turn(m.role, m.text()) for m in earlier)  # the answerer keeps the last few
    return Question(text=text, history=history)


def _usage(done: Done | None) -> dict[str, int]:
    usage = dict(done.usage) if done else {}
    prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _reason(done: Done | None) -> str | None:
    return done.refusal_reason if done else None


def _finish(done: Done | None) -> str:
    reason = done.finish_reason if done else "stop"
    return reason if reason in ("stop", "length") else "stop"


def _count_failure(services: Services, event: Error) -> None:
    services.metrics.count_upstream_error(event.code)
    logger.warning("answer failed (%s): %s", event.code, event.detail or event.message)


def _envelope(completion_id: str, kind: str) -> dict[str, Any]:
    return {"id": completion_id, "object": kind, "created": int(time.time()), "model": MODEL_ID}


@router.post("/v1/chat/completions", response_model=None, responses=errors(*BODY, 401, 404, 429))
async def chat_completions(
    body: CompletionRequest, user: ChattingKeyUser, services: ServicesDep
) -> dict[str, Any] | EventSourceResponse:
    """An OpenAI chat completion, or its chunk stream when `stream` is true."""
    question = to_question(body, services.limits)
    filters = await run_in_threadpool(request_filters, services, body.paper_ids, body.author)
    question = replace(question, filters=filters)
    slot = AsyncExitStack()
    await slot.enter_async_context(services.slots.acquire(user.id))
    if body.stream:
        include_usage = bool((body.stream_options or {}).get("include_usage"))
        shutdown = anyio.Event()
        stream = _chunks(services, question, include_usage, slot, shutdown)
        return EventSourceResponse(
            stream,
            headers=SSE_HEADERS,
            ping=services.limits.ping_interval_s,
            shutdown_event=shutdown,
            shutdown_grace_period=SHUTDOWN_GRACE_S,
        )
    async with slot:
        return await _whole(services, question)


async def _whole(services: Services, question: Question) -> dict[str, Any]:
    text: list[str] = []
    sources: list[dict[str, Any]] = []
    done: Done | None = None
    async with aclosing(services.index.answerer.answer(question)) as events:
        async for event in events:
            if isinstance(event, Sources):
                sources = event.data()["sources"]
            elif isinstance(event, Delta):
                text.append(event.text)
            elif isinstance(event, Done):
                done = event
            elif isinstance(event, Error):
                _count_failure(services, event)
                raise HTTPException(status.HTTP_502_BAD_GATEWAY, event.message)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text), "refusal": None}
    message |= {"refused": bool(done and done.refused), "refusal_reason": _reason(done)}
    choice = {"index": 0, "message": message, "finish_reason": _finish(done), "logprobs": None}
    payload = _envelope(f"chatcmpl-{uuid.uuid4().hex}", "chat.completion")
    payload |= {"choices": [choice], "usage": _usage(done), "sources": sources}
    payload["citations"] = list(done.citations) if done else []
    return payload


async def _chunks(
    services: Services,
    question: Question,
    include_usage: bool,
    slot: AsyncExitStack,
    shutdown: anyio.Event,
) -> AsyncIterator[dict[str, str]]:
    """The answer as chunks, ended by `[DONE]` after the last one or after an error chunk
    (a failure, or `shutting_down` when the server stops mid-answer)."""
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, str]:
        payload = _envelope(completion_id, "chat.completion.chunk")
        payload["choices"] = [
            {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        ]
        return {"data": json.dumps(payload | extra)}

    try:
        async with aclosing(services.index.answerer.answer(question)) as events:
            async for event in until_shutdown(events, shutdown):
                if isinstance(event, Sources):
                    yield chunk(
                        {"role": "assistant", "content": ""}, sources=event.data()["sources"]
                    )
                elif isinstance(event, Delta):
                    yield chunk({"content": event.text})
                elif isinstance(event, Done):
                    yield chunk(
                        {},
                        _finish(event),
                        citations=list(event.citations),
                        refused=event.refused,
                        refusal_reason=event.refusal_reason,
                    )
                    if include_usage:
                        usage = _envelope(completion_id, "chat.completion.chunk")
                        yield {"data": json.dumps(usage | {"choices": [], "usage": _usage(event)})}
                    yield DONE
                elif isinstance(event, Error):
                    if event is not SHUTTING_DOWN:
                        _count_failure(services, event)
                    error = {"message": event.message, "type": event.code, "code": event.code}
                    yield {"data": json.dumps({"error": error})}
                    yield DONE
    finally:
        await slot.aclose()
