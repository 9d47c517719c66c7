"""Admission of answers: a few computed at once, a bounded line served round-robin by user,
and a refusal at once, with when to come back, when the line is full."""

from __future__ import annotations

import asyncio

import pytest

from chat.service.access.admission import Admission, AnswersBusy

pytestmark = pytest.mark.timeout(20)


class Holders:
    """Answers that hold their place until released, recording the order they got one in."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.served: list[str] = []
        self.release = asyncio.Event()

    async def answer(self, name: str, user_id: str) -> None:
        async with self.admission.admitted(user_id):
            self.served.append(name)
            await self.release.wait()


async def _queued(holders: Holders, names: list[tuple[str, str]]) -> list[asyncio.Task[None]]:
    tasks = []
    for name, user_id in names:
        tasks.append(asyncio.create_task(holders.answer(name, user_id)))
        await asyncio.sleep(0)
    return tasks


async def test_one_users_burst_waits_behind_another_users_single_question() -> None:
    admission = Admission(capacity=1, queue_size=20, per_user=10)
    holders = Holders(admission)
    first = await _queued(holders, [("C", "user-c")])
    burst = await _queued(holders, [(f"A{n}", "user-a") for n in range(1, 11)])
    single = await _queued(holders, [("B", "user-b")])

    assert admission.waiting == 11
    await _drain(holders, [*first, *burst, *single])

    assert holders.served[:3] == ["C", "A1", "B"]
    assert holders.served.index("B") < holders.served.index("A2")
    assert sorted(holders.served) == sorted(["C", "B", *(f"A{n}" for n in range(1, 11))])
    assert (admission.running, admission.waiting) == (0, 0)


async def _drain(holders: Holders, tasks: list[asyncio.Task[None]]) -> None:
    """Let every answer through, one place at a time."""
    while not all(task.done() for task in tasks):
        release, holders.release = holders.release, asyncio.Event()
        release.set()
        for _ in range(5):
            await asyncio.sleep(0)
    await asyncio.gather(*tasks)


async def test_no_more_than_capacity_answers_hold_a_place_at_once() -> None:
    admission = Admission(capacity=3, queue_size=20, per_user=20)
    holding, most = 0, 0

    async def answer(user_id: str) -> None:
        nonlocal holding, most
        async with admission.admitted(user_id):
            holding += 1
            most = max(most, holding)
            await asyncio.sleep(0)
            holding -= 1

    await asyncio.gather(*(answer(f"user-{n % 4}") for n in range(16)))

    assert most == 3
    assert (admission.running, admission.waiting) == (0, 0)


async def test_a_full_line_refuses_at_once_saying_when_to_come_back() -> None:
    admission = Admission(capacity=1, queue_size=2, per_user=2)
    holders = Holders(admission)
    tasks = await _queued(holders, [("A", "a"), ("B", "b"), ("C", "c")])

    with pytest.raises(AnswersBusy) as refused:
        async with admission.admitted("d"):
            pass
    await _drain(holders, tasks)

    assert refused.value.retry_after_s >= 1
    assert "busy" in str(refused.value)
    assert holders.served == ["A", "B", "C"]


async def test_one_user_may_not_take_more_than_their_share_of_the_line() -> None:
    admission = Admission(capacity=1, queue_size=10, per_user=2)
    holders = Holders(admission)
    tasks = await _queued(holders, [("A1", "a"), ("A2", "a"), ("A3", "a")])

    with pytest.raises(AnswersBusy) as refused:
        async with admission.admitted("a"):
            pass
    others = await _queued(holders, [("B", "b")])
    await _drain(holders, [*tasks, *others])

    assert "2 of your questions already wait" in str(refused.value)
    assert holders.served == ["A1", "A2", "B", "A3"]


async def test_a_waiter_that_goes_away_leaves_the_line_and_the_next_is_served() -> None:
    admission = Admission(capacity=1, queue_size=10, per_user=10)
    holders = Holders(admission)
    tasks = await _queued(holders, [("A", "a"), ("B", "b"), ("C", "c")])

    tasks[1].cancel()
    await asyncio.gather(tasks[1], return_exceptions=True)
    waiting = admission.waiting
    await _drain(holders, [tasks[0], tasks[2]])

    assert waiting == 1
    assert holders.served == ["A", "C"]
    assert (admission.running, admission.waiting) == (0, 0)


async def test_a_waiter_handed_a_place_as_it_goes_away_passes_it_on() -> None:
    admission = Admission(capacity=1, queue_size=10, per_user=10)
    holders = Holders(admission)
    tasks = await _queued(holders, [("A", "a"), ("B", "b"), ("C", "c")])

    holders.release.set()  # A leaves and hands its place to B...
    await asyncio.sleep(0)
    tasks[1].cancel()  # ...which goes away before it could start
    holders.release = asyncio.Event()
    await asyncio.gather(tasks[0], tasks[1], return_exceptions=True)
    await _drain(holders, [tasks[2]])

    assert holders.served == ["A", "C"]
    assert (admission.running, admission.waiting) == (0, 0)


def test_retry_after_grows_with_the_line_and_stays_bounded() -> None:
    admission = Admission(capacity=2, queue_size=100, per_user=100)
    admission.typical_s = 3.0

    short = admission.retry_after_s()
    admission._waiting = 10
    long = admission.retry_after_s()
    admission._waiting = 10_000
    longest = admission.retry_after_s()

    assert (short, long, longest) == (2, 15, 60)
