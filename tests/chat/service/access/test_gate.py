"""The gate on password checks: a few at a time, the rest wait in line or are turned away."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from chat.service.access.gate import LOWEST_PRIORITY, NICENESS, Busy, Gate

pytestmark = pytest.mark.timeout(20)


async def test_no_more_than_capacity_hold_a_turn_at_once() -> None:
    gate = Gate(2, wait_s=10)
    holding, most = 0, 0

    async def hold() -> None:
        nonlocal holding, most
        async with gate.turn():
            holding += 1
            most = max(most, holding)
            await asyncio.sleep(0.01)
            holding -= 1

    await asyncio.gather(*(hold() for _ in range(10)))

    assert most == 2
    assert gate._free == 2


async def test_a_caller_waiting_too_long_is_turned_away_and_leaves_the_line() -> None:
    gate = Gate(1, wait_s=0.05)
    release = asyncio.Event()

    async def hold() -> None:
        async with gate.turn():
            await release.wait()

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0)
    with pytest.raises(Busy):
        async with gate.turn():
            pass
    release.set()
    await holder

    assert not gate._waiters
    assert gate._free == 1


async def test_a_cancelled_waiter_gives_its_place_to_the_next() -> None:
    gate = Gate(1, wait_s=10)
    release = asyncio.Event()
    entered: list[str] = []

    async def hold(name: str) -> None:
        async with gate.turn():
            entered.append(name)
            await release.wait()

    first = asyncio.create_task(hold("first"))
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(hold("cancelled"))
    last = asyncio.create_task(hold("last"))
    await asyncio.sleep(0)
    cancelled.cancel()
    release.set()
    await asyncio.gather(first, last)

    assert entered == ["first", "last"]
    assert gate._free == 1


def test_one_gate_serves_several_event_loops() -> None:
    gate = Gate(1, wait_s=10)
    holding, most = 0, 0
    lock = threading.Lock()

    async def hold() -> None:
        nonlocal holding, most
        async with gate.turn():
            with lock:
                holding += 1
                most = max(most, holding)
            await asyncio.sleep(0.01)
            with lock:
                holding -= 1

    def loop() -> None:
        async def run() -> None:
            await asyncio.gather(*(hold() for _ in range(5)))

        asyncio.run(run())

    threads = [threading.Thread(target=loop) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert most == 1
    assert gate._free == 1


async def test_run_calls_on_the_gates_own_threads_below_the_servers_own_priority() -> None:
    # The server's niceness: the suite's own, which is not 0 under `nice`.
    server = os.getpriority(os.PRIO_PROCESS, 0)
    gate = Gate(1, wait_s=10)

    def where() -> tuple[str, int]:
        return threading.current_thread().name, os.getpriority(
            os.PRIO_PROCESS, threading.get_native_id()
        )

    try:
        name, niceness = await gate.run(where)
    finally:
        gate.close()

    assert name.startswith("gate")
    assert niceness == min(server + NICENESS, LOWEST_PRIORITY)
