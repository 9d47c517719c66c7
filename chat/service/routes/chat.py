"""`POST /api/chat`: a cited answer as server-sent events, kept in the user's conversation.

The conversation is created on the first message (titled from it); a
follow-up brings the conversation's earlier turns as history, read once its
turn is numbered, so that of two follow-ups asked at once the second sees
the first. The answer is saved before its stream's last event: `complete`
with its sources, citations and usage, `cancelled` when the client went
away (the upstream call is closed with it), `error` when the model's server
failed or the server shut down (the stream then ends with an `error` event
`shutting_down`). An answer that cannot be saved ends with the `error` event
`not_saved` instead of `done`, is kept as `error` if the database still
takes that, and is logged. A conversation deleted while its answer streams
stays deleted: the answer and its upstream call stop at once (a delete on
another worker is seen within `DELETION_CHECK_S`, by one look in the database
for all the answers of this worker), the stream ends with an
`error` event `conversation_deleted`, and the user's stream slot is free.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy.exc import SQLAlchemyError
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from chat.rag.answer.answering import Answerer, Question, Turn
from chat.rag.answer.events import Delta, Done, Error, Event, Gathered, Sources, dispatch
from chat.service.metrics import Metrics
from chat.service.routes.deps import (
    AuthorName,
    ChattingUser,
    MessageText,
    PaperId,
    Services,
    ServicesDep,
    admit,
    check_question,
)
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.conversations import (
    NotFound,
    Status,
    existing_answers,
    messages_before,
    open_turn,
    update_assistant_message,
)
from chat.service.streams import (
    CONVERSATION_DELETED,
    SHUTDOWN_GRACE_S,
    SHUTTING_DOWN,
    SSE_HEADERS,
    until_stopped,
)
from chat.service.uploads.asking import (
    MAX_ASKED_UPLOADS,
    Asked,
    question_scope,
    scope_answerer,
)

logger = logging.getLogger("paperchat.chat")
router = APIRouter(tags=["chat"])

# How often a worker looks whether the conversations of its streaming answers were deleted.
DELETION_CHECK_S = 1.0
# The stream's last event instead of `done` when the answer could not be saved.
NOT_SAVED = Error(
    "not_saved", "the answer could not be saved, so this conversation will not keep it; try again"
)
Saving = Literal["saved", "deleted", "failed"]


class ChatRequest(BaseModel):
    message: MessageText = Field(
        min_length=1,
        description="the question; at most PAPERCHAT_MAX_QUESTION_CHARS characters, the "
        "maxLength this server states",
    )
    conversation_id: str | None = Field(default=None, max_length=64)
    paper_ids: list[PaperId] = Field(default_factory=list, max_length=50)
    author: AuthorName | None = Field(
        default=None,
        description="only this author's papers (404 when no indexed author has the name); "
        "with paper_ids, only those of them that are this author's",
    )
    collection_id: str | None = Field(
        default=None,
        max_length=64,
        description="only the papers of this collection of the user's (404 for another "
        "user's); with paper_ids, only those of them that are in it",
    )
    upload_ids: list[str] = Field(
        default_factory=list,
        max_length=MAX_ASKED_UPLOADS,
        description="ask the user's own uploads (each `ready`; 404 for another user's, as "
        "for one that does not exist), cited as `[doc:<id>]` (an upload the library holds "
        "is its library paper, cited as `[arXiv:<id>]`): alone, the answer is drawn from "
        "these PDFs only; with paper_ids, author or collection_id, from them and those "
        "papers of the library, merged into one ranking",
    )
    with_library: bool = Field(
        default=False,
        description="with upload_ids alone, also ask the whole library (its papers cited as "
        "`[arXiv:<id>]`, the uploads as `[doc:<id>]`, in one answer); without it, uploads "
        "alone are asked alone",
    )
    follow_up: bool = Field(
        default=True,
        description="a question that leans on the previous answer ('and how big is its "
        "database?') is asked about the papers that answer cited, as the sources event's "
        "`scope` says; false asks it of the whole index",
    )


@dataclass(kw_only=True)
class Turnout(Gathered):
    """What one answer produced so far, to be saved however the stream ends; how long its
    retrieval and its first words took, and how it failed, go to the metrics as they come."""

    metrics: Metrics
    started: float = field(default_factory=time.perf_counter)
    status: Status = "streaming"

    def on_sources(self, event: Sources) -> None:
        super().on_sources(event)
        self.metrics.observe_retrieval(time.perf_counter() - self.started)

    def on_delta(self, event: Delta) -> None:
        if not self.pieces:
            self.metrics.observe_first_token(time.perf_counter() - self.started)
        super().on_delta(event)

    def on_done(self, event: Done) -> None:
        super().on_done(event)
        self.status = "complete"

    def on_error(self, event: Error) -> None:
        super().on_error(event)
        self.status = "error"
        if event not in (SHUTTING_DOWN, CONVERSATION_DELETED):
            self.metrics.count_upstream_error(event.code)
            logger.warning("answer failed (%s): %s", event.code, event.detail or event.message)


@dataclass(frozen=True)
class Prepared:
    conversation_id: str
    message_id: str
    history: tuple[Turn, ...]


def prepare_turn(
    services: Services, user_id: str, request: ChatRequest, answerer: Answerer
) -> Prepared:
    """The conversation (new or the user's own, else NotFound), the user's message stored,
    an empty assistant message to fill, and the turns before it that were answered."""
    with services.sessions() as session:
        conversation, reply = open_turn(
            session,
            user_id,
            request.conversation_id,
            request.message,
            node=services.turns.node_id,
            mode=answerer.mode,
            prompt_version=answerer.prompts.version,
            model=answerer.model_name or None,
        )
        earlier = messages_before(session, user_id, reply) if request.conversation_id else []
        done = [m for m in earlier if m.content and m.status == "complete"]
        # The answerer keeps the last `PAPERCHAT_HISTORY_MESSAGES` of them.
        history = tuple(Turn(m.role, m.content) for m in done)
        return Prepared(conversation.id, reply.id, history)


def save_turn(services: Services, user_id: str, message_id: str, turnout: Turnout) -> None:
    done = turnout.done
    with services.sessions() as session:
        update_assistant_message(
            session,
            user_id,
            message_id,
            content=turnout.text,
            status=turnout.status if turnout.status != "streaming" else "error",
            sources=turnout.sources if turnout.found is not None else None,
            citations=list(done.citations) if done else None,
            usage=done.usage if done else None,
            timings=done.timings if done else None,
            quotes=[quote.data() for quote in done.quotes] if done else None,
            scope=_scope(turnout),
        )


def _scope(turnout: Turnout) -> dict[str, Any] | None:
    """The papers a follow-up was asked about, as the sources event said, if it was."""
    found = turnout.found
    return found.scope.data() if found is not None and found.scope is not None else None


@asynccontextmanager
async def watching_deletions(services: Services) -> AsyncIterator[None]:
    """While inside, while answers stream here: every `DELETION_CHECK_S`, one look in the
    database for all of them, and those whose conversation is gone stop, with their upstream
    calls (a delete on this worker stopped them at once already; this finds a delete on any
    other worker or node). Leaving it waits for a look in progress."""
    async with anyio.create_task_group() as group:
        group.start_soon(_watch_deletions, services)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


async def _watch_deletions(services: Services) -> None:
    turns = services.turns
    while True:
        while not turns.answers():
            await turns.changed()
        # The first look comes `DELETION_CHECK_S` after the first answer started, none while
        # none streams.
        with anyio.move_on_after(DELETION_CHECK_S):
            while turns.answers():
                await turns.changed()
        if turns.answers():
            with anyio.CancelScope(shield=True):
                await stop_deleted(services)


async def stop_deleted(services: Services) -> None:
    """Stop the answers streaming here whose conversation was deleted: one query for all."""
    running = services.turns.answers()
    if not running:
        return
    try:
        kept = await anyio.to_thread.run_sync(_existing_answers, services, running)
    except SQLAlchemyError as e:  # the database is away: look again next time
        logger.warning("cannot look for deleted conversations: %s", e)
        return
    services.turns.stop_answers(m for m in running if m not in kept)


def _existing_answers(services: Services, message_ids: list[str]) -> set[str]:
    with services.sessions() as session:
        return existing_answers(session, message_ids)


async def answer_events(
    services: Services,
    user_id: str,
    question: Question,
    slot: AsyncExitStack,
    shutdown: anyio.Event,
    answerer: Answerer | None = None,
) -> AsyncIterator[dict[str, str]]:
    """The answerer's events as SSE messages; the turn is saved whatever happens, and the
    user's stream slot is given back whatever saving does.

    The answer is saved before its `done` or `error` is sent: when its
    conversation was deleted meanwhile the delete wins, nothing is kept, and
    the stream ends with `CONVERSATION_DELETED` instead; when saving failed a
    `done` becomes `NOT_SAVED`.
    """
    turnout, saved = Turnout(metrics=services.metrics), False
    # Given up with the slot: a delete stops the answer at once until then.
    running = services.turns.running(question.conversation_id, question.message_id)
    deleted = slot.enter_context(running)
    try:
        with services.metrics.stream_open():
            answering = answerer or services.index.answerer
            async with aclosing(answering.answer(question)) as answer:
                async for event in until_stopped(
                    answer, shutdown, deleted, services.settings.stream_flush_s
                ):
                    dispatch(event, turnout)
                    if turnout.ended:
                        saved = True
                        saving = await _save(services, user_id, question.message_id, turnout)
                        event = _last_event(event, saving)
                    yield {"event": event.name, "data": json.dumps(event.data())}
    except (anyio.get_cancelled_exc_class(), GeneratorExit):
        # The client went away: closing the answer closed the upstream call too.
        turnout.status = "cancelled"
        raise
    except Exception as e:
        logger.exception("chat stream failed: %s", type(e).__name__)
        turnout.status = "error"
        failure = Error("internal_error", "the answer failed; try again")
        yield {"event": failure.name, "data": json.dumps(failure.data())}
    finally:
        with anyio.CancelScope(shield=True):
            try:
                outcome = turnout.done.finish_reason if turnout.done else turnout.status
                services.metrics.observe_stream(outcome, time.perf_counter() - turnout.started)
                if not saved:
                    await _save(services, user_id, question.message_id, turnout)
            finally:
                await slot.aclose()


async def _save(services: Services, user_id: str, message_id: str, turnout: Turnout) -> Saving:
    """Save the turn: `deleted` when its conversation is gone (deleted while it streamed),
    `failed` when the database refused it (a full disk, a lost connection).

    A failure is logged, not raised: the stream's end must still give back
    the user's slot and reach the client. The answer is then marked `error`
    if the database takes that smaller write, so the conversation does not
    show it as streaming.
    """
    try:
        await run_in_threadpool(save_turn, services, user_id, message_id, turnout)
    except NotFound:
        logger.info("answer %s not saved: its conversation was deleted", message_id)
        return "deleted"
    except Exception as e:  # the stream's boundary: log it, the answer is lost
        logger.exception("cannot save answer %s: %s", message_id, type(e).__name__)
    else:
        return "saved"
    try:
        await run_in_threadpool(_mark_failed, services, user_id, message_id)
    except Exception as e:  # the stream's boundary, as above
        logger.exception("cannot mark answer %s failed either: %s", message_id, type(e).__name__)
    else:
        logger.warning("answer %s not saved: it is kept as failed, without its text", message_id)
    return "failed"


def _mark_failed(services: Services, user_id: str, message_id: str) -> None:
    with services.sessions() as session:
        update_assistant_message(session, user_id, message_id, status="error")


def _last_event(event: Event, saving: Saving) -> Event:
    """The stream's last event once the answer ending with `event` was saved, or not."""
    if saving == "deleted":
        return CONVERSATION_DELETED
    if saving == "failed" and isinstance(event, Done):
        return NOT_SAVED
    return event


@router.post(
    "/api/chat",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "the answer's events"},
        **errors(*BODY, *SIGNED_IN, 404, 429, 503),
    },
)
async def chat(
    body: ChatRequest, user: ChattingUser, services: ServicesDep, request: Request
) -> EventSourceResponse:
    """Stream `meta`, `sources`, `delta`..., then `done` or `error`."""
    check_question(body.message, services.limits)
    asked = Asked(
        body.paper_ids, body.author, body.collection_id, body.upload_ids, body.with_library
    )
    folder_of = request.app.state.uploads.folder
    scope = await run_in_threadpool(question_scope, services, folder_of, user.id, asked)
    slot = AsyncExitStack()
    await slot.enter_async_context(services.slots.acquire(user.id))
    await admit(slot, services, user.id)
    try:
        # Its uploads' indexes are closed with the slot, once the answer's stream ends.
        answerer = slot.enter_context(scope_answerer(services.index, scope))
        prepared = await run_in_threadpool(prepare_turn, services, user.id, body, answerer)
    except BaseException:
        await slot.aclose()
        raise
    question = Question(
        text=body.message,
        history=prepared.history,
        filters=scope.filters,
        conversation_id=prepared.conversation_id,
        message_id=prepared.message_id,
        follow_up=body.follow_up,
    )
    shutdown = anyio.Event()
    return EventSourceResponse(
        answer_events(services, user.id, question, slot, shutdown, answerer),
        headers=SSE_HEADERS,
        ping=services.limits.ping_interval_s,
        shutdown_event=shutdown,
        shutdown_grace_period=SHUTDOWN_GRACE_S,
    )
