"""Blocking work repeated in a worker thread while the app runs, stopped cleanly.

Cancelling a task that waits on `to_thread` leaves the thread running: a step still holding a
database connection or the lexical index while the lifespan disposes of them returns the
connection to a pool already thrown away (a connection left open) or writes to a closed
index. `ticking` stops between steps instead: leaving it waits for the step in progress.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio


@asynccontextmanager
async def ticking(step: Callable[[], object], interval_s: float) -> AsyncIterator[None]:
    """Run `step` in a worker thread at once and then `interval_s` after each run ends, for
    the length of the block. `step` handles its own errors: one it raises ends the ticking
    and is raised when the block is left."""
    stopping = anyio.Event()

    async def loop() -> None:
        while not stopping.is_set():
            await anyio.to_thread.run_sync(step)
            with anyio.move_on_after(interval_s):
                await stopping.wait()

    task = asyncio.ensure_future(loop())
    try:
        yield
    finally:
        stopping.set()
        await task
