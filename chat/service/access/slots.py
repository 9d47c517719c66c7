"""The per-user stream slots in Redis, so that the cap holds across every API node.

A user's slots are one sorted set, `paperchat:slots:<user id>`: each member
is one open stream, scored with the time (Redis's clock, in ms) its slot
lapses. Taking a slot first drops the lapsed members, then counts the rest,
in one Lua script, so two nodes never both take the last slot. The holder
renews its member every `heartbeat_s`; a node that dies stops renewing and
its slots lapse after `ttl_s`. The key itself expires with its last slot.
"""

from __future__ import annotations

from typing import Final

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from chat.service.access.ratelimit import RateLimitUnavailable, StreamSlots

SLOTS_PREFIX: Final = "paperchat:slots:"

# KEYS[1]: the user's set. ARGV: the slot, the cap, the TTL in ms.
# Holds the slot (renewing it if held) and returns 1, or returns 0 when the cap is reached.
_TAKE_SCRIPT: Final = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not held and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1
"""


class RedisSlots:
    """Stream slots in Redis (`StreamSlots(max, shared=RedisSlots(...))`), shared by every
    process that uses the same server and prefix."""

    def __init__(
        self,
        client: aioredis.Redis,
        ttl_s: float,
        heartbeat_s: float,
        prefix: str = SLOTS_PREFIX,
    ) -> None:
        if ttl_s <= heartbeat_s:
            raise ValueError(f"the slot TTL ({ttl_s:g} s) must exceed the heartbeat's period")
        self.ttl_s = ttl_s
        self.heartbeat_s = heartbeat_s
        self.prefix = prefix
        self._client = client
        self._take = client.register_script(_TAKE_SCRIPT)

    async def take(self, user_id: str, slot: str, max_per_user: int) -> bool:
        ttl_ms = max(1, round(self.ttl_s * 1000))
        try:
            taken = await self._take(
                keys=[self.prefix + user_id], args=[slot, max_per_user, ttl_ms]
            )
        except RedisError as e:
            raise RateLimitUnavailable(f"stream slot store unavailable: {e}") from e
        return bool(taken)

    async def renew(self, user_id: str, slot: str, max_per_user: int) -> bool:
        return await self.take(user_id, slot, max_per_user)

    async def give_back(self, user_id: str, slot: str) -> None:
        try:
            await self._client.zrem(self.prefix + user_id, slot)
        except RedisError as e:
            raise RateLimitUnavailable(f"stream slot store unavailable: {e}") from e

    async def aclose(self) -> None:
        await self._client.aclose()

    async def held(self, user_id: str) -> int:
        """The user's live slots on every node."""
        try:
            clock = await self._client.time()
            now_ms = clock[0] * 1000 + clock[1] // 1000
            return int(await self._client.zcount(self.prefix + user_id, f"({now_ms}", "+inf"))
        except RedisError as e:
            raise RateLimitUnavailable(f"stream slot store unavailable: {e}") from e


def build_stream_slots(
    max_per_user: int, redis_url: str | None, ttl_s: float, heartbeat_s: float
) -> StreamSlots:
    """Slots shared through Redis when a URL is given, else counted in this process."""
    if not redis_url:
        return StreamSlots(max_per_user)
    client = aioredis.Redis.from_url(redis_url, socket_connect_timeout=2.0, socket_timeout=2.0)
    return StreamSlots(max_per_user, RedisSlots(client, ttl_s, heartbeat_s))
