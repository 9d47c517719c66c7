"""The events an answer streams, in order: meta, sources, delta..., then done or error.

Answering produces these; the CLI prints them and the API turns them into
SSE events with the same names and `data`. Whoever acts on them by kind is an
`EventHandler`, and `dispatch` is the one place that tells the kinds apart:
a new kind of event is a new method every handler must have.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, assert_never

from chat.rag.answer.followups import Carried
from chat.rag.answer.namesakes import Namesake
from chat.rag.answer.quotes import Quote
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
    # The previous answer's papers a follow-up was asked about, when it leaned on them.
    scope: Carried | None = None
    name: str = "sources"

    def data(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"sources": [s.as_event() for s in self.sources]}
        if self.query is not None:
            payload["query"] = self.query
        if self.scope is not None:
            payload["scope"] = self.scope.data()
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
    # Each citation in the order written: the passage it quotes and the words it follows.
    quotes: tuple[Quote, ...] = ()
    # The paper a name several papers introduce was taken to mean, and the others.
    namesake: Namesake | None = None
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
            "quotes": [quote.data() for quote in self.quotes],
            "namesake": None if self.namesake is None else self.namesake.data(),
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

R = TypeVar("R", covariant=True)


class EventHandler(Protocol[R]):
    """What to do with each kind of event (`dispatch` calls the method of its kind)."""

    def on_meta(self, event: Meta) -> R: ...

    def on_sources(self, event: Sources) -> R: ...

    def on_delta(self, event: Delta) -> R: ...

    def on_done(self, event: Done) -> R: ...

    def on_error(self, event: Error) -> R: ...


def dispatch(event: Event, handler: EventHandler[R]) -> R:
    """What `handler` makes of `event`, by its kind."""
    match event:
        case Meta():
            return handler.on_meta(event)
        case Sources():
            return handler.on_sources(event)
        case Delta():
            return handler.on_delta(event)
        case Done():
            return handler.on_done(event)
        case Error():
            return handler.on_error(event)
        case _:
            assert_never(event)


@dataclass
class Gathered:
    """An answer's events taken whole: for callers that reply once, not as a stream, and a
    handler to build on for those that also act on each event as it comes."""

    pieces: list[str] = field(default_factory=list)
    found: Sources | None = None  # the `sources` event, once it came
    done: Done | None = None
    error: Error | None = None  # the answer failed: `done` is None

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    @property
    def ended(self) -> bool:
        """Whether the answer's last event, its `done` or its `error`, came."""
        return self.done is not None or self.error is not None

    @property
    def sources(self) -> list[dict[str, Any]]:
        """The sources as the `sources` event shows them; none before it came."""
        return self.found.data()["sources"] if self.found is not None else []

    def on_meta(self, event: Meta) -> None:
        return None

    def on_sources(self, event: Sources) -> None:
        self.found = event

    def on_delta(self, event: Delta) -> None:
        self.pieces.append(event.text)

    def on_done(self, event: Done) -> None:
        self.done = event

    def on_error(self, event: Error) -> None:
        self.error = event


G = TypeVar("G", bound=Gathered)


async def gather(events: AsyncGenerator[Event, None], into: G) -> G:
    """`into` with every event of the answer handled, up to its end or its error; the events
    are closed when they end or fail (the upstream call with them)."""
    async with aclosing(events) as stream:
        async for event in stream:
            dispatch(event, into)
            if into.error is not None:
                break
    return into
