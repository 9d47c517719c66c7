"""A gate that lets a few callers through at once: the cap on password checks.

Each argon2 check takes tens of milliseconds of every core; a flood of
sign-ins running them all at once starved everything else on the server.
`Gate(capacity, wait_s)` lets `capacity` holders in at a time; a newcomer
waits in line (first come, first served) without holding a thread, and is
turned away with `Busy` after `wait_s` seconds.

```
result = await gate.run(check_password)   # raises Busy when the line did not move in time
```

`run` calls the function on the gate's own `capacity` threads, at a lower
CPU priority (`nice`, on Linux): under load the rest of the server comes
first, and the shared worker threads are never taken by password checks.

The count is kept under a thread lock and each waiter is woken on its own
event loop, so one gate serves any number of loops and threads.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from typing import TypeVar

from ingest.errors import PaperchatError


class Busy(PaperchatError):
    """Every turn stayed taken for as long as the caller would wait."""


_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]
T = TypeVar("T")
# How much lower than the server's the gate's threads run (os.setpriority's "nice"): added
# to the server's own niceness, up to the lowest priority there is.
NICENESS = 10
LOWEST_PRIORITY = 19


def _lower_priority() -> None:
    """Run this thread NICENESS steps below the thread that started it (the server's, which
    may run under `nice` itself); a no-op where threads cannot have their own."""
    with suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        lower = os.getpriority(os.PRIO_PROCESS, thread) + NICENESS
        os.setpriority(os.PRIO_PROCESS, thread, min(lower, LOWEST_PRIORITY))


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Gate:
    def __init__(self, capacity: int, wait_s: float) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self.wait_s = wait_s
        self._free = capacity
        self._waiters: deque[_Waiter] = deque()
        self._lock = threading.Lock()
        self._threads = ThreadPoolExecutor(
            capacity, thread_name_prefix="gate", initializer=_lower_priority
        )

    async def run(self, function: Callable[[], T]) -> T:
        """`function()` on one of the gate's threads, once a turn is free."""
        async with self.turn():
            return await asyncio.get_running_loop().run_in_executor(self._threads, function)

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        await self._enter()
        try:
            yield
        finally:
            self._leave()

    async def _enter(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            waiter: _Waiter = (loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self.wait_s):
                await asyncio.shield(waiter[1])
        except TimeoutError:
            if self._withdraw(waiter):
                raise Busy(f"{self.capacity} password checks already running") from None
            # The turn came just as the time ran out: it is ours.
        except asyncio.CancelledError:
            if not self._withdraw(waiter):
                self._leave()  # handed a turn while going away: pass it on
            raise

    def _withdraw(self, waiter: _Waiter) -> bool:
        """Leave the line; False when the turn was already handed over."""
        with self._lock, suppress(ValueError):
            self._waiters.remove(waiter)
            return True
        return False

    def _leave(self) -> None:
        with self._lock:
            if not self._waiters:
                self._free += 1
                return
            loop, future = self._waiters.popleft()
        try:
            loop.call_soon_threadsafe(_wake, future)
        except RuntimeError:  # that waiter's loop is closed: the next one gets the turn
            self._leave()
