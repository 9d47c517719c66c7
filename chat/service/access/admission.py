"""Admission of answers: how many a worker computes at once, and a fair line for the rest.

An answer (`/api/chat`, `/v1/chat/completions`) takes one of the worker's
`capacity` places for as long as it runs. When every place is taken, it
waits in line: at most `queue_size` answers wait in the worker, at most
`per_user` of them one user's, and the line is served round-robin by user,
so one user's burst waits behind other users' single questions. Beyond
that the request is refused at once with `AnswersBusy` (a 503 with `Retry-After`)
rather than kept waiting for a stream that would start many seconds late.

```
async with admission.admitted(user_id):   # raises AnswersBusy when the line is full
    ...compute and stream the answer...
```

`Retry-After` is the time the answers already waiting should take to be
served: the line's length over the places, times how long an answer has
been holding its place lately (a moving average). Used on one event loop.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from ingest.errors import PaperchatError

# The first guess of how long an answer holds its place, in seconds, before any is measured.
FIRST_GUESS_S: Final = 1.0
# The weight of the latest answer in the moving average of how long answers hold a place.
SMOOTHING: Final = 0.2
# Retry-After never says more than this many seconds: beyond it the estimate means little.
LONGEST_RETRY_S: Final = 60


class AnswersBusy(PaperchatError):
    """No answer can start or wait here now; `retry_after_s` says when to ask again."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Admission:
    def __init__(self, capacity: int, queue_size: int, per_user: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self.queue_size = queue_size
        self.per_user = per_user
        self.running = 0
        self.typical_s = FIRST_GUESS_S
        # Each waiting user's line, in the order of their turns.
        self._lines: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """The answers waiting in line, every user's."""
        return self._waiting

    def waiting_for(self, user_id: str) -> int:
        return len(self._lines.get(user_id, ()))

    def retry_after_s(self) -> int:
        """Seconds until the answers waiting now should have been served."""
        estimate = self.typical_s * max(1, self._waiting) / self.capacity
        return min(LONGEST_RETRY_S, max(1, math.ceil(estimate)))

    @asynccontextmanager
    async def admitted(self, user_id: str) -> AsyncIterator[None]:
        """Inside, the answer holds one of the places; AnswersBusy when it can neither take one
        nor wait for one."""
        await self._enter(user_id)
        started = time.monotonic()
        try:
            yield
        finally:
            held = time.monotonic() - started
            self.typical_s += SMOOTHING * (held - self.typical_s)
            self._leave()

    async def _enter(self, user_id: str) -> None:
        if self.running < self.capacity and not self._lines:
            self.running += 1
            return
        if self._waiting >= self.queue_size:
            raise AnswersBusy(
                f"the server is busy: {self.running} answers are being written and "
                f"{self._waiting} wait; retry in {self.retry_after_s()} s",
                self.retry_after_s(),
            )
        mine = self.waiting_for(user_id)
        if mine >= self.per_user:
            raise AnswersBusy(
                f"the server is busy and {mine} of your questions already wait; "
                f"retry in {self.retry_after_s()} s",
                self.retry_after_s(),
            )
        turn = asyncio.get_running_loop().create_future()
        self._lines.setdefault(user_id, deque()).append(turn)
        self._waiting += 1
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._leave()  # handed the place while going away: pass it on
            else:
                self._withdraw(user_id, turn)
            raise

    def _withdraw(self, user_id: str, turn: asyncio.Future[None]) -> None:
        line = self._lines.get(user_id)
        if line is None or turn not in line:
            return
        line.remove(turn)
        self._waiting -= 1
        if not line:
            del self._lines[user_id]

    def _leave(self) -> None:
        """Hand the place to the first answer of the user whose turn it is (that user then
        goes to the back of the line), or free it when nobody waits."""
        while self._lines:
            user_id, line = next(iter(self._lines.items()))
            turn = line.popleft()
            self._waiting -= 1
            if line:
                self._lines.move_to_end(user_id)
            else:
                del self._lines[user_id]
            if not turn.done():
                turn.set_result(None)
                return
        self.running -= 1
