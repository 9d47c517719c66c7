"""The answer stream's events between the answerer and the client: deltas held and sent
together, the stream stopped by a shutdown, nothing of the answer's text lost on the way."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import anyio

from chat.rag.answer.events import Delta, Done, Event
from chat.service.streams import SHUTTING_DOWN, RunningTurns, _Woken, until_stopped

DONE = Done(finish_reason="stop", citations=(), dropped_citations=(), mode="llm")


async def pieces(texts: Sequence[str], apart_s: float) -> AsyncIterator[Event]:
    """An answer streaming `texts` as deltas, `apart_s` seconds apart, then done."""
    for text in texts:
        yield Delta(text)
        await asyncio.sleep(apart_s)
    yield DONE


async def collected(events: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in events]


def texts_of(events: Sequence[Event]) -> list[str]:
    return [event.text for event in events if isinstance(event, Delta)]


async def test_pieces_streamed_close_together_go_out_as_fewer_deltas() -> None:
    words = [f"w{i} " for i in range(30)]

    sent = await collected(until_stopped(pieces(words, 0.005), anyio.Event(), flush_s=0.05))

    deltas = texts_of(sent)
    assert "".join(deltas) == "".join(words)
    assert deltas[0] == "w0 "  # the first word is never held
    assert len(deltas) < len(words) / 2
    assert sent[-1] == DONE


async def test_no_flush_time_sends_each_piece_as_it_comes() -> None:
    words = ["a ", "b ", "c "]

    sent = await collected(until_stopped(pieces(words, 0.001), anyio.Event(), flush_s=0.0))

    assert texts_of(sent) == words
    assert sent[-1] == DONE


async def test_held_text_goes_out_while_the_model_is_still_silent() -> None:
    resume = asyncio.Event()

    async def stalling() -> AsyncIterator[Event]:
        yield Delta("first ")
        yield Delta("second ")  # held: it follows the first at once
        await resume.wait()  # the model says nothing until the client has "second"
        yield Delta("third")
        yield DONE

    seen: list[Event] = []
    async with asyncio.timeout(10):  # a held text that waited for the model hangs here
        async for event in until_stopped(stalling(), anyio.Event(), flush_s=0.05):
            seen.append(event)
            if texts_of(seen) == ["first ", "second "]:
                resume.set()

    assert texts_of(seen) == ["first ", "second ", "third"]
    assert seen[-1] == DONE


async def test_a_shutdown_sends_the_held_text_before_its_error() -> None:
    shutdown = anyio.Event()

    async def forever() -> AsyncIterator[Event]:
        yield Delta("first ")
        yield Delta("held ")
        shutdown.set()
        await asyncio.sleep(3600)
        yield DONE

    sent = await collected(until_stopped(forever(), shutdown, flush_s=1.0))

    assert texts_of(sent) == ["first ", "held "]
    assert sent[-1] == SHUTTING_DOWN


def test_running_answers_are_stopped_by_their_message_or_their_conversation() -> None:
    turns = RunningTurns("node")

    with (
        turns.running("chat-1", "answer-1") as first,
        turns.running("chat-1", "answer-2") as second,
        turns.running("chat-2", "answer-3") as third,
    ):
        running = turns.answers()
        turns.stop_answers(["answer-3", "answer-gone"])
        stopped_by_message = [first.is_set(), second.is_set(), third.is_set()]
        turns.stop("chat-1")
        stopped_after_delete = [first.is_set(), second.is_set(), third.is_set()]

    assert sorted(running) == ["answer-1", "answer-2", "answer-3"]
    assert stopped_by_message == [False, False, True]
    assert stopped_after_delete == [True, True, True]
    assert turns.answers() == []


async def test_a_wait_ends_at_the_first_wake_after_it_began_or_when_due() -> None:
    loop = asyncio.get_running_loop()
    woken = _Woken(loop)

    woken.wake()  # before the wait: nothing to end, nothing kept for later
    waiting = asyncio.ensure_future(woken.wait(None))
    for _ in range(3):
        await asyncio.sleep(0)
    waited_past_the_early_wake = not waiting.done()
    woken.wake()
    await waiting
    loop.call_soon(woken.wake)
    async with asyncio.timeout(10):  # a wake that did not end the wait hangs here
        await woken.wait(3600.0)
        await woken.wait(0.0)  # due at once, with no wake

    assert waited_past_the_early_wake
    assert woken.waiter is None
