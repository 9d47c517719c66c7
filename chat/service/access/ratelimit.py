"""Per-user request limits and the per-user cap on concurrent chat streams.

A limit is written `COUNT/PERIOD` (`30/minute`, `5/second`, `1000/hour`,
`100/day`) and enforced with GCRA (the generic cell rate algorithm): up to
COUNT requests may come at once, then one more each PERIOD/COUNT. One stored
number per key (its "theoretical arrival time") is all the state it needs.

- `InProcessRateLimiter` keeps that state in a dict behind a lock; it counts
  for one process only.
- `RedisRateLimiter` keeps it in Redis under `paperchat:rl:<key>` with an
  expiry, updated by one Lua script (atomic, and timed by the Redis server's
  clock), so every API worker shares one limit.

`hit` is synchronous and brief. The Redis one does network I/O: from async
code call it from a sync FastAPI dependency (run in the threadpool) or
through `anyio.to_thread.run_sync`.

`StreamSlots` caps how many chat streams one user may have open at a time.
Without Redis it counts within one process: with several workers a user may
hold up to `workers * max_per_user` streams in all. With Redis
(`chat.service.access.slots.RedisSlots`) the cap holds across every worker
and node, and a slot whose holder stopped beating comes free within its TTL.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final, Protocol

import anyio
import anyio.to_thread
import redis

from ingest.errors import PaperchatError

KEY_PREFIX: Final = "paperchat:rl:"
logger = logging.getLogger("paperchat.limits")

_PERIODS: Final = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_LIMIT_PATTERN: Final = re.compile(r"\s*(\d+)\s*/\s*([a-z]+?)s?\s*", re.IGNORECASE)
# Slack for floating-point time arithmetic, in seconds.
_EPSILON_S: Final = 1e-6


class RateLimitUnavailable(PaperchatError):
    """The shared limiter's store (Redis) could not be reached."""


class TooManyStreams(PaperchatError):
    """The user already has as many chat streams open as allowed."""

    def __init__(self, user_id: str, max_per_user: int) -> None:
        super().__init__(f"user {user_id!r} already has {max_per_user} open chat streams")
        self.user_id = user_id
        self.max_per_user = max_per_user


@dataclass(frozen=True, slots=True)
class RateLimit:
    count: int
    period_s: int

    @property
    def interval_s(self) -> float:
        """Time for one request's allowance to come back."""
        return self.period_s / self.count


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    # Seconds until the next request would be allowed; 0 when allowed.
    retry_after_s: int
    # Requests still allowed right now, after this one.
    remaining: int


def over_limit(what: str, limit: str, decision: Decision) -> str:
    """What a 429 says: what was counted, its limit (a setting's `COUNT/PERIOD`, as set) and
    when to come back."""
    return f"too many {what}: the limit is {limit}; retry in {decision.retry_after_s} s"


class RateLimiter(Protocol):
    def hit(self, key: str) -> Decision:
        """Count one request for `key` if the limit allows it."""
        ...


def parse_rate_limit(text: str) -> RateLimit:
    """Read `30/minute`, `5/second`, `1000/hour` or `100/day` (plural units too)."""
    match = _LIMIT_PATTERN.fullmatch(text)
    if match is None or match.group(2).lower() not in _PERIODS:
        raise ValueError(
            f"cannot parse rate limit {text!r}: expected COUNT/PERIOD with PERIOD one of "
            f"{', '.join(_PERIODS)}, e.g. '30/minute'"
        )
    count = int(match.group(1))
    if count < 1:
        raise ValueError(f"cannot parse rate limit {text!r}: the count must be at least 1")
    return RateLimit(count=count, period_s=_PERIODS[match.group(2).lower()])


def _gcra(limit: RateLimit, tat: float | None, now: float) -> tuple[Decision, float | None]:
    """One GCRA step: the decision and the new arrival time to store (None: keep the old)."""
    interval, period = limit.interval_s, float(limit.period_s)
    new_tat = max(tat if tat is not None else now, now) + interval
    wait = new_tat - period - now
    if wait > _EPSILON_S:
        return Decision(False, max(1, math.ceil(wait - _EPSILON_S)), 0), None
    remaining = math.floor((period - (new_tat - now)) / interval + _EPSILON_S)
    return Decision(True, 0, max(0, remaining)), new_tat


class InProcessRateLimiter:
    """GCRA in this process's memory; safe from several threads and from asyncio."""

    _PRUNE_FLOOR: Final = 10_000

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._tats: dict[str, float] = {}
        self._lock = threading.Lock()
        self._prune_at = self._PRUNE_FLOOR

    def hit(self, key: str) -> Decision:
        with self._lock:
            now = self._clock()
            decision, new_tat = _gcra(self.limit, self._tats.get(key), now)
            if new_tat is not None:
                self._tats[key] = new_tat
            if len(self._tats) > self._prune_at:
                self._prune(now)
            return decision

    def _prune(self, now: float) -> None:
        """Forget keys whose allowance is whole again: they behave as if never seen."""
        self._tats = {key: tat for key, tat in self._tats.items() if tat > now}
        self._prune_at = max(self._PRUNE_FLOOR, 2 * len(self._tats))


# KEYS[1]: the key. ARGV: interval and period in milliseconds.
# Returns {allowed (0/1), retry_after_s, remaining}.
_GCRA_SCRIPT: Final = """
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local epsilon = 0.001
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + interval
local wait = new_tat - period - now
if wait > epsilon then
  return {0, math.max(1, math.ceil((wait - epsilon) / 1000)), 0}
end
local ttl = math.max(1, math.ceil(new_tat - now))
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', ttl)
local remaining = math.floor((period - (new_tat - now)) / interval + epsilon)
return {1, 0, math.max(0, remaining)}
"""


class RedisRateLimiter:
    """GCRA in Redis, shared by every process that uses the same server and prefix."""

    def __init__(self, client: redis.Redis, limit: RateLimit, prefix: str = KEY_PREFIX) -> None:
        self.limit = limit
        self.prefix = prefix
        self._client = client
        self._script = client.register_script(_GCRA_SCRIPT)

    def hit(self, key: str) -> Decision:
        interval_ms = self.limit.interval_s * 1000
        period_ms = self.limit.period_s * 1000
        try:
            reply = self._script(keys=[self.prefix + key], args=[interval_ms, period_ms])
        except redis.RedisError as e:
            raise RateLimitUnavailable(f"rate limit store unavailable: {e}") from e
        allowed, retry_after_s, remaining = (int(value) for value in reply)
        return Decision(bool(allowed), retry_after_s, remaining)


def build_rate_limiter(limit: str, redis_url: str | None) -> RateLimiter:
    """The Redis limiter when a URL is given (shared by workers), else the in-process one."""
    parsed = parse_rate_limit(limit)
    if not redis_url:
        return InProcessRateLimiter(parsed)
    client = redis.Redis.from_url(redis_url, socket_connect_timeout=2.0, socket_timeout=2.0)
    return RedisRateLimiter(client, parsed)


async def hit_async(limiter: RateLimiter, key: str) -> Decision:
    """`limiter.hit(key)` from the event loop: at once for this process's own limiter (it
    takes a lock for microseconds), from a worker thread for one that asks Redis."""
    if isinstance(limiter, InProcessRateLimiter):
        return limiter.hit(key)
    return await anyio.to_thread.run_sync(limiter.hit, key)


class SharedSlots(Protocol):
    """Stream slots kept where every node sees them; each call may raise
    RateLimitUnavailable (the store is away)."""

    heartbeat_s: float

    async def take(self, user_id: str, slot: str, max_per_user: int) -> bool:
        """Hold `slot` for the user unless they already hold `max_per_user` live ones."""
        ...

    async def renew(self, user_id: str, slot: str, max_per_user: int) -> bool:
        """Keep `slot` alive (taking it again if it had lapsed and there is room)."""
        ...

    async def give_back(self, user_id: str, slot: str) -> None: ...

    async def aclose(self) -> None:
        """Close the connections to the store."""
        ...


class StreamSlots:
    """At most `max_per_user` open chat streams per user: counted in this process, and
    across every node when `shared` (Redis) is given.

    ```
    async with slots.acquire(user_id):   # raises TooManyStreams when full
        ...stream the answer...
    ```
    The slot is given back when the block exits, however it exits. A shared
    slot is renewed every `shared.heartbeat_s` while the block runs. When the
    shared store cannot be reached, `acquire` raises RateLimitUnavailable
    (the stream is refused, as the shared rate limits refuse); a renewal or
    a give-back that fails is logged, and the slot lapses by itself.
    """

    def __init__(self, max_per_user: int, shared: SharedSlots | None = None) -> None:
        if max_per_user < 1:
            raise ValueError(f"max_per_user must be at least 1, not {max_per_user}")
        self.max_per_user = max_per_user
        self.shared = shared
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def open_count(self, user_id: str) -> int:
        """The user's streams open in this process."""
        with self._lock:
            return self._open.get(user_id, 0)

    @asynccontextmanager
    async def acquire(self, user_id: str) -> AsyncIterator[None]:
        if self.shared is None:
            self._take(user_id)
            try:
                yield
            finally:
                self._give_back(user_id)
            return
        async with self._shared_slot(self.shared, user_id):
            yield

    async def aclose(self) -> None:
        if self.shared is not None:
            await self.shared.aclose()

    @asynccontextmanager
    async def _shared_slot(self, shared: SharedSlots, user_id: str) -> AsyncIterator[None]:
        slot = uuid.uuid4().hex
        if not await shared.take(user_id, slot, self.max_per_user):
            raise TooManyStreams(user_id, self.max_per_user)
        with self._lock:
            self._open[user_id] = self._open.get(user_id, 0) + 1
        renewing = asyncio.ensure_future(self._renew(shared, user_id, slot))
        try:
            yield
        finally:
            renewing.cancel()
            self._give_back(user_id)
            try:
                with anyio.CancelScope(shield=True):
                    await shared.give_back(user_id, slot)
            except RateLimitUnavailable as e:
                logger.warning("stream slot not given back (it lapses by itself): %s", e)

    async def _renew(self, shared: SharedSlots, user_id: str, slot: str) -> None:
        while True:
            await asyncio.sleep(shared.heartbeat_s)
            try:
                held = await shared.renew(user_id, slot, self.max_per_user)
            except RateLimitUnavailable as e:
                logger.warning("stream slot not renewed: %s", e)
                continue
            if not held:
                logger.warning("a stream slot of user %r lapsed and was taken", user_id)

    def _take(self, user_id: str) -> None:
        with self._lock:
            held = self._open.get(user_id, 0)
            if held >= self.max_per_user:
                raise TooManyStreams(user_id, self.max_per_user)
            self._open[user_id] = held + 1

    def _give_back(self, user_id: str) -> None:
        with self._lock:
            held = self._open.get(user_id, 0) - 1
            if held > 0:
                self._open[user_id] = held
            else:
                self._open.pop(user_id, None)
