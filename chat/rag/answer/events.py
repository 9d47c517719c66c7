"""The events an answer streams, in order: meta, sources, delta..., then done or error.

Answering produces these; the CLI prints them and the API turns them into
SSE events with the same names and `data`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from chat.rag.sources import Source


@dataclass(frozen=True)
class Meta:
    conversation_id: str
    message_id: str
    name: str = "meta"

    def data(self) -> dict[str, Any]:
        return {"conversation_id": self.conversation_id, "message_id": self.message_id}


@dataclass(frozen=True)
class Sources:
    sources: tuple[Source, ...]
    # The standalone query retrieval used, when a follow-up was rewritten.
    query: str | None = None
    name: str = "sources"

    def data(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"sources": [s.as_event() for s in self.sources]}
        if self.query is not None:
            payload["query"] = self.query
        return payload


@dataclass(frozen=True)
class Delta:
    text: str
    name: str = "delta"

    def data(self) -> dict[str, Any]:
        return {"text": self.text}


@dataclass(frozen=True)
class Done:
    finish_reason: str  # "stop", "length" or "cancelled"
    citations: tuple[str, ...]
    dropped_citations: tuple[str, ...]
    mode: str  # "llm" or "extractive"
    usage: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    prompt_version: str = ""
    model: str = ""
    # The answer declined: the sources do not support one (`chat/rag/retrieval/relevance.py`).
    refused: bool = False
    refusal_reason: str | None = None
    name: str = "done"

    def data(self) -> dict[str, Any]:
        return {
            "finish_reason": self.finish_reason,
            "citations": list(self.citations),
            "dropped_citations": list(self.dropped_citations),
            "mode": self.mode,
            "usage": self.usage,
            "timings": self.timings,
            "prompt_version": self.prompt_version,
            "model": self.model,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
        }


@dataclass(frozen=True)
class Error:
    code: str  # e.g. "upstream_error", "upstream_timeout", "index_unavailable"
    message: str  # what a user may read
    name: str = "error"
    # For the operator only (the logs, the CLI): the model server's address and its own
    # words. Never in `data()`, which is sent to users.
    detail: str = ""

    def data(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


Event = Meta | Sources | Delta | Done | Error


@dataclass
class Gathered:
    """An answer's events taken whole: for callers that reply once, not as a stream."""

    text: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    done: Done | None = None
    error: Error | None = None  # the answer failed: `done` is None


async def gather(events: AsyncGenerator[Event, None]) -> Gathered:
    """The text, the sources (as the `sources` event shows them) and how the answer ended;
    the events are closed when they end or fail (the upstream call with them)."""
    gathered = Gathered()
    pieces: list[str] = []
    async with aclosing(events) as stream:
        async for event in stream:
            if isinstance(event, Sources):
                gathered.sources = event.data()["sources"]
            elif isinstance(event, Delta):
                pieces.append(event.text)
            elif isinstance(event, Done):
                gathered.done = event
            elif isinstance(event, Error):
                gathered.error = event
                break
    gathered.text = "".join(pieces)
    return gathered
