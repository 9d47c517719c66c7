"""What the answer streams of `/api/chat` and `/v1/chat/completions` share: their headers,
and how one stops early, when the server shuts down or its conversation is deleted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import anyio

from chat.rag.answer.events import Error, Event

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
# After a shutdown begins, how long a stream has to send its `error` event.
SHUTDOWN_GRACE_S = 3.0
SHUTTING_DOWN = Error("shutting_down", "the server is shutting down; ask again in a moment")
CONVERSATION_DELETED = Error(
    "conversation_deleted", "the conversation was deleted while the answer streamed"
)


class RunningTurns:
    """The answers this process is streaming, by conversation, so that deleting a
    conversation stops its answers at once. Used on the event loop only.

    A delete on another worker is not seen here: the answer then finds its
    conversation gone by looking in the database.
    """

    def __init__(self) -> None:
        self._stops: dict[str, list[anyio.Event]] = {}

    @contextmanager
    def running(self, conversation_id: str) -> Iterator[anyio.Event]:
        """While inside, an event that `stop(conversation_id)` sets."""
        stop = anyio.Event()
        self._stops.setdefault(conversation_id, []).append(stop)
        try:
            yield stop
        finally:
            stops = self._stops[conversation_id]
            stops.remove(stop)
            if not stops:
                del self._stops[conversation_id]

    def stop(self, conversation_id: str) -> None:
        """Stop the conversation's answers streaming here."""
        for stop in self._stops.get(conversation_id, ()):
            stop.set()


async def until_stopped(
    events: AsyncIterator[Event], shutdown: anyio.Event, deleted: anyio.Event | None = None
) -> AsyncIterator[Event]:
    """The answer's events, then `SHUTTING_DOWN` instead of the rest once `shutdown` is set,
    or `CONVERSATION_DELETED` once `deleted` is.

    The pending step of the answer is cancelled at once, which closes the
    upstream call, rather than waiting for the model's next token.
    """
    ends = {SHUTTING_DOWN: shutdown, CONVERSATION_DELETED: deleted or anyio.Event()}
    stops = {asyncio.ensure_future(event.wait()): end for end, event in ends.items()}
    step: asyncio.Future[Event | None] | None = None
    try:
        while not any(stop.done() for stop in stops):
            step = asyncio.ensure_future(anext(events, None))
            await asyncio.wait((step, *stops), return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                await _cancel(step)
                break
            event = step.result()
            if event is None:
                return
            yield event
        yield next(end for stop, end in stops.items() if stop.done())
    finally:
        for stop in stops:
            stop.cancel()
        if step is not None:
            await _cancel(step)


async def _cancel(step: asyncio.Future[Event | None]) -> None:
    """End the answer's pending step where it waits (closing the upstream call with it)."""
    if not step.done():
        step.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.gather(step, return_exceptions=True)
