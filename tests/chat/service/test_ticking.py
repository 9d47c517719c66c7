"""Background steps stop between runs: leaving the block waits for the step in progress, so
nothing it holds (a pooled connection, the lexical index) is closed under it."""

from __future__ import annotations

import threading
import time

import anyio

from chat.service.ticking import ticking


def test_leaving_waits_for_the_step_in_progress_to_end() -> None:
    started = threading.Event()
    ended: list[float] = []

    def step() -> None:
        started.set()
        time.sleep(0.3)
        ended.append(time.monotonic())

    async def run() -> float:
        async with ticking(step, interval_s=60):
            await anyio.to_thread.run_sync(started.wait)
        return time.monotonic()

    left = anyio.run(run)
    assert len(ended) == 1
    assert ended[0] <= left


def test_the_step_runs_again_after_each_interval_until_the_block_is_left() -> None:
    runs: list[int] = []
    third = threading.Event()

    def step() -> None:
        runs.append(1)
        if len(runs) == 3:
            third.set()

    async def run() -> int:
        async with ticking(step, interval_s=0.01):
            assert await anyio.to_thread.run_sync(third.wait, 10)
        return len(runs)

    counted = anyio.run(run)
    time.sleep(0.05)
    assert counted >= 3
    assert len(runs) == counted  # none after the block was left
