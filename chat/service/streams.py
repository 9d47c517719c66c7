"""What the answer streams of `/api/chat` and `/v1/chat/completions` share: their headers,
how one stops early, when the server shuts down or its conversation is deleted, and the
heartbeat that tells the other nodes this one's answers are still being written."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import secrets
import socket
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta

import anyio
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from chat.rag.answer.events import Delta, Error, Event
from chat.service.storage.conversations import beat, mark_interrupted
from chat.service.storage.tables import utcnow
from chat.service.ticking import ticking

logger = logging.getLogger("paperchat.streams")

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
# After a shutdown begins, how long a stream has to send its `error` event.
SHUTDOWN_GRACE_S = 3.0
SHUTTING_DOWN = Error("shutting_down", "the server is shutting down; ask again in a moment")
CONVERSATION_DELETED = Error(
    "conversation_deleted", "the conversation was deleted while the answer streamed"
)


def new_node_id() -> str:
    """A name for this server process, unique among the nodes sharing a database: its
    host, its pid and a few random characters (a restarted process is a new node)."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}:{secrets.token_hex(4)}"


class RunningTurns:
    """The answers this process (the node `node_id`) is streaming, by conversation, so that
    deleting a conversation stops its answers at once, and by message, so that one look in
    the database finds those of them deleted elsewhere. Used on the event loop only.

    A delete on another worker is not seen here: `stop_answers` is given the
    answers whose conversation the database no longer holds.
    """

    def __init__(self, node_id: str | None = None) -> None:
        self.node_id = node_id or new_node_id()
        self._stops: dict[str, list[anyio.Event]] = {}
        self._answers: dict[str, anyio.Event] = {}
        self._changed: anyio.Event | None = None

    @contextmanager
    def running(self, conversation_id: str, message_id: str | None = None) -> Iterator[anyio.Event]:
        """While inside, an event that `stop(conversation_id)` sets, and
        `stop_answers([message_id])`: `message_id` is the answer's own message."""
        stop = anyio.Event()
        self._stops.setdefault(conversation_id, []).append(stop)
        if message_id is not None:
            self._answers[message_id] = stop
            self._change()
        try:
            yield stop
        finally:
            stops = self._stops[conversation_id]
            stops.remove(stop)
            if not stops:
                del self._stops[conversation_id]
            if message_id is not None:
                del self._answers[message_id]
                self._change()

    def stop(self, conversation_id: str) -> None:
        """Stop the conversation's answers streaming here."""
        for stop in self._stops.get(conversation_id, ()):
            stop.set()

    def answers(self) -> list[str]:
        """The messages of the answers streaming here (given to `running`)."""
        return list(self._answers)

    def stop_answers(self, message_ids: Iterable[str]) -> None:
        """Stop the answers writing these messages, those still streaming here."""
        for message_id in message_ids:
            if (stop := self._answers.get(message_id)) is not None:
                stop.set()

    async def changed(self) -> None:
        """Wait until an answer given to `running` with its message starts or ends."""
        if self._changed is None:
            self._changed = anyio.Event()
        await self._changed.wait()

    def _change(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None


async def until_stopped(
    events: AsyncIterator[Event],
    shutdown: anyio.Event,
    deleted: anyio.Event | None = None,
    flush_s: float = 0.0,
) -> AsyncIterator[Event]:
    """The answer's events, then `SHUTTING_DOWN` instead of the rest once `shutdown` is set,
    or `CONVERSATION_DELETED` once `deleted` is.

    The pending step of the answer is cancelled at once, which closes the
    upstream call, rather than waiting for the model's next token.

    A delta comes out at once when none came out in the last `flush_s`
    seconds (`PAPERCHAT_STREAM_FLUSH_S`); the ones that follow it closer are
    held and come out together, `flush_s` after it, or sooner with the event
    that ends the answer. Each event sent costs the server a write and the
    client a wake-up: a model streaming a token every 20 ms is sent as about
    one delta in 50 ms, and the first word is never held.
    """
    ends = {SHUTTING_DOWN: shutdown, CONVERSATION_DELETED: deleted or anyio.Event()}
    stops = {asyncio.ensure_future(event.wait()): end for end, event in ends.items()}
    loop = asyncio.get_running_loop()
    held = _Held(flush_s, loop.time)
    woken = _Woken(loop)
    for stop in stops:
        stop.add_done_callback(woken.wake)
    step: asyncio.Future[Event | None] | None = None
    try:
        while not any(stop.done() for stop in stops):
            if step is None:
                step = asyncio.ensure_future(anext(events, None))
                step.add_done_callback(woken.wake)
            if not step.done():
                await woken.wait(held.wait())
            if not step.done():
                if any(stop.done() for stop in stops):
                    await _cancel(step)
                    break
                yield held.release()  # the held deltas' time has come
                continue
            event, step = step.result(), None
            if isinstance(event, Delta):
                if held.take(event):
                    yield held.release()
                continue
            if held:
                yield held.release()
            if event is None:
                return
            yield event
        if held:
            yield held.release()
        yield next(end for stop, end in stops.items() if stop.done())
    finally:
        for stop in stops:
            stop.cancel()
        if step is not None:
            await _cancel(step)


class _Woken:
    """What `until_stopped` waits on: the answer's step or a stop done (their callback
    `wake`), or the held text due, whichever comes first. One future a wait, rather than
    `asyncio.wait`'s callbacks added to and taken from each of them every time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiter: asyncio.Future[None] | None = None

    def wake(self, _: object = None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def wait(self, due_s: float | None) -> None:
        """Until `wake` is called, or `due_s` seconds have passed (None: no limit)."""
        self.waiter = self.loop.create_future()
        timer = self.loop.call_later(due_s, self.wake) if due_s is not None else None
        try:
            await self.waiter
        finally:
            self.waiter = None
            if timer is not None:
                timer.cancel()


class _Held:
    """The deltas of an answer held back until `flush_s` after the last one sent."""

    def __init__(self, flush_s: float, clock: Callable[[], float]) -> None:
        self.flush_s = flush_s
        self.clock = clock
        self.texts: list[str] = []
        self.sent_at = -math.inf

    def __bool__(self) -> bool:
        return bool(self.texts)

    def take(self, delta: Delta) -> bool:
        """Hold `delta`; whether the held text is due now."""
        self.texts.append(delta.text)
        return self.clock() - self.sent_at >= self.flush_s

    def wait(self) -> float | None:
        """Seconds until the held text is due; None when nothing is held."""
        if not self.texts:
            return None
        return max(0.0, self.sent_at + self.flush_s - self.clock())

    def release(self) -> Delta:
        """The held text as one delta, sent now."""
        delta = Delta("".join(self.texts))
        self.texts.clear()
        self.sent_at = self.clock()
        return delta


async def _cancel(step: asyncio.Future[Event | None]) -> None:
    """End the answer's pending step where it waits (closing the upstream call with it)."""
    if not step.done():
        step.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.gather(step, return_exceptions=True)


@asynccontextmanager
async def beating(
    sessions: Callable[[], Session], node_id: str, heartbeat_s: float, ttl_s: float
) -> AsyncIterator[None]:
    """While inside, every `heartbeat_s`: note that `node_id`'s streaming answers are alive,
    then mark `interrupted` any answer, of any node, that has not beaten for `ttl_s` (its
    node died). Every node sweeps, so a dead node's answers end within about
    `ttl_s + heartbeat_s` as long as one node runs."""

    def once() -> None:
        try:
            with sessions() as session:
                beat(session, node_id)
                cut_off = mark_interrupted(session, utcnow() - timedelta(seconds=ttl_s))
        except SQLAlchemyError as e:  # the database is away: beat again next time
            logger.warning("stream heartbeat of %s failed: %s", node_id, e)
            return
        if cut_off:
            logger.warning("%d answer(s) of a stopped server marked interrupted", cut_off)

    async with ticking(once, heartbeat_s):
        yield
