"""The stream slots shared through Redis: one cap across nodes, slots that lapse when their
holder stops beating, and a refusal when Redis is away."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import redis
import redis.asyncio as aioredis

from chat.service.access.ratelimit import RateLimitUnavailable, StreamSlots, TooManyStreams
from chat.service.access.slots import RedisSlots, build_stream_slots
from tests.support.running.net import unused_port

pytestmark = pytest.mark.timeout(30)

REDIS_URL = os.environ.get("PAPERCHAT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
TTL_S = 0.6
HEARTBEAT_S = 0.1


@pytest.fixture(name="redis_prefix")
def redis_prefix_fixture() -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    prefix = f"paperchat:slots:test:{uuid.uuid4().hex}:"
    yield prefix
    with redis.Redis.from_url(REDIS_URL) as client:
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)


MakeNode = Callable[..., StreamSlots]


@pytest.fixture(name="node")
async def node_fixture(redis_prefix: str) -> AsyncIterator[MakeNode]:
    made: list[StreamSlots] = []

    def node(max_per_user: int = 2, heartbeat_s: float = HEARTBEAT_S) -> StreamSlots:
        """One node's slots: a Redis client (and connection pool) of its own."""
        shared = RedisSlots(aioredis.Redis.from_url(REDIS_URL), TTL_S, heartbeat_s, redis_prefix)
        slots = StreamSlots(max_per_user, shared)
        made.append(slots)
        return slots

    yield node
    for slots in made:
        await slots.aclose()


async def test_the_cap_holds_across_nodes_and_frees_on_exit(node: MakeNode) -> None:
    first, second = node(), node()

    async with first.acquire("ada"), first.acquire("ada"):
        with pytest.raises(TooManyStreams, match="'ada' already has 2 open chat streams"):
            async with second.acquire("ada"):
                pass
        async with second.acquire("grace"):
            held_here = (first.open_count("ada"), second.open_count("grace"))
    async with second.acquire("ada"), second.acquire("ada"):
        after = second.open_count("ada")

    assert held_here == (2, 1)
    assert after == 2
    assert first.open_count("ada") == 0


async def test_a_held_slot_outlives_its_ttl_while_it_beats(node: MakeNode) -> None:
    holder, other = node(max_per_user=1), node(max_per_user=1)

    async with holder.acquire("ada"):
        await asyncio.sleep(TTL_S * 3)
        with pytest.raises(TooManyStreams):
            async with other.acquire("ada"):
                pass


async def test_a_dead_nodes_slot_comes_free_within_its_ttl(node: MakeNode) -> None:
    # A node that stops beating (killed): its slot is never given back, only lapses.
    dead, alive = node(max_per_user=1), node(max_per_user=1)
    assert dead.shared is not None
    assert await dead.shared.take("ada", "a stream of the dead node", 1)

    with pytest.raises(TooManyStreams):
        async with alive.acquire("ada"):
            pass
    await asyncio.sleep(TTL_S + 0.2)
    async with alive.acquire("ada"):
        taken = alive.open_count("ada")

    assert taken == 1


async def test_concurrent_acquires_on_two_nodes_get_at_most_the_cap(node: MakeNode) -> None:
    nodes = [node(max_per_user=3), node(max_per_user=3)]
    release = asyncio.Event()

    async def stream(slots: StreamSlots) -> bool:
        try:
            async with slots.acquire("ada"):
                await release.wait()
        except TooManyStreams:
            return False
        return True

    tasks = [asyncio.create_task(stream(nodes[i % 2])) for i in range(12)]
    await asyncio.sleep(0.3)
    held = sum(slots.open_count("ada") for slots in nodes)
    release.set()
    results = await asyncio.gather(*tasks)

    assert held == 3
    assert results.count(True) == 3


async def test_with_redis_away_a_stream_is_refused_as_the_shared_limits_are() -> None:
    # Fail closed: a stream past the cap must not open because the count cannot be read.
    slots = build_stream_slots(2, f"redis://127.0.0.1:{unused_port()}/0", TTL_S, HEARTBEAT_S)

    with pytest.raises(RateLimitUnavailable, match="stream slot store unavailable"):
        async with slots.acquire("ada"):
            pass

    assert slots.open_count("ada") == 0
    await slots.aclose()


def test_without_a_redis_url_slots_are_counted_in_the_process() -> None:
    slots = build_stream_slots(2, None, TTL_S, HEARTBEAT_S)

    assert slots.shared is None
    assert slots.max_per_user == 2
