from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis

from chat.service.access.ratelimit import (
    Decision,
    InProcessRateLimiter,
    RateLimit,
    RateLimiter,
    RateLimitUnavailable,
    RedisRateLimiter,
    StreamSlots,
    TooManyStreams,
    build_rate_limiter,
    hit_async,
    over_limit,
    parse_rate_limit,
)

pytestmark = pytest.mark.timeout(20)

REDIS_URL = os.environ.get("PAPERCHAT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

MakeLimiter = Callable[[str], RateLimiter]


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    prefix = f"paperchat:rl:test:{uuid.uuid4().hex}:"
    yield prefix
    with redis.Redis.from_url(REDIS_URL) as client:
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)


def _redis_limiter(limit: str, prefix: str) -> RedisRateLimiter:
    """A limiter with a client (and connection pool) of its own, as each worker has."""
    return RedisRateLimiter(redis.Redis.from_url(REDIS_URL), parse_rate_limit(limit), prefix)


@pytest.fixture(params=["in-process", "redis"])
def make_limiter(request: pytest.FixtureRequest, redis_prefix: str) -> MakeLimiter:
    if request.param == "redis":
        return lambda limit: _redis_limiter(limit, redis_prefix)
    return lambda limit: InProcessRateLimiter(parse_rate_limit(limit))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30/minute", RateLimit(30, 60)),
        ("5/second", RateLimit(5, 1)),
        ("1000/hour", RateLimit(1000, 3600)),
        ("100/day", RateLimit(100, 86400)),
        (" 10 / Minutes ", RateLimit(10, 60)),
    ],
)
def test_parse_rate_limit_reads_count_and_period(text: str, expected: RateLimit) -> None:
    assert parse_rate_limit(text) == expected


@pytest.mark.parametrize("text", ["", "30", "30/fortnight", "minute/30", "0/minute", "-1/day"])
def test_parse_rate_limit_names_the_text_it_cannot_read(text: str) -> None:
    with pytest.raises(ValueError, match="cannot parse rate limit") as caught:
        parse_rate_limit(text)

    assert repr(text) in str(caught.value)


def test_limiter_allows_the_limit_then_refuses_with_retry_after(make_limiter: MakeLimiter) -> None:
    limiter = make_limiter("5/minute")

    allowed = [limiter.hit("alice") for _ in range(5)]
    refused = limiter.hit("alice")

    assert [d.allowed for d in allowed] == [True] * 5
    assert [d.remaining for d in allowed] == [4, 3, 2, 1, 0]
    assert not refused.allowed
    assert 1 <= refused.retry_after_s <= 60
    assert refused.remaining == 0


def test_limiter_recovers_after_the_window(make_limiter: MakeLimiter) -> None:
    limiter = make_limiter("5/second")
    for _ in range(5):
        limiter.hit("alice")
    assert not limiter.hit("alice").allowed

    time.sleep(1.05)
    after = [limiter.hit("alice") for _ in range(5)]

    assert [d.allowed for d in after] == [True] * 5
    assert not limiter.hit("alice").allowed


def test_limiter_counts_each_key_on_its_own(make_limiter: MakeLimiter) -> None:
    limiter = make_limiter("2/minute")
    limiter.hit("alice")
    limiter.hit("alice")

    bob = limiter.hit("bob")
    alice = limiter.hit("alice")

    assert bob.allowed
    assert bob.remaining == 1
    assert not alice.allowed


def test_concurrent_hits_never_pass_the_limit(make_limiter: MakeLimiter) -> None:
    limiter = make_limiter("50/minute")

    with ThreadPoolExecutor(max_workers=8) as pool:
        decisions = list(pool.map(lambda _: limiter.hit("alice"), range(120)))

    assert sum(d.allowed for d in decisions) == 50


def test_two_redis_limiters_share_one_count(redis_prefix: str) -> None:
    first_worker = _redis_limiter("4/minute", redis_prefix)
    second_worker = _redis_limiter("4/minute", redis_prefix)

    decisions = [worker.hit("alice") for worker in (first_worker, second_worker) * 2]
    after = (first_worker.hit("alice"), second_worker.hit("alice"))

    assert [d.remaining for d in decisions] == [3, 2, 1, 0]
    assert [d.allowed for d in after] == [False, False]


def test_redis_keys_are_namespaced_and_expire(redis_prefix: str) -> None:
    limiter = _redis_limiter("5/second", redis_prefix)

    limiter.hit("alice")

    with redis.Redis.from_url(REDIS_URL) as client:
        ttl_ms = client.pttl(redis_prefix + "alice")
    assert redis_prefix.startswith("paperchat:rl:")
    assert 0 < ttl_ms <= 1000


def test_unreachable_redis_raises_rate_limit_unavailable() -> None:
    limiter = build_rate_limiter("5/minute", "redis://127.0.0.1:1/0")

    with pytest.raises(RateLimitUnavailable, match="unavailable"):
        limiter.hit("alice")


def test_build_rate_limiter_picks_redis_only_with_a_url() -> None:
    local = build_rate_limiter("30/minute", None)
    shared = build_rate_limiter("30/minute", REDIS_URL)

    assert isinstance(local, InProcessRateLimiter)
    assert isinstance(shared, RedisRateLimiter)
    assert shared.prefix == "paperchat:rl:"


def test_build_rate_limiter_rejects_a_bad_limit_before_connecting() -> None:
    with pytest.raises(ValueError, match="'lots'"):
        build_rate_limiter("lots", "redis://127.0.0.1:1/0")


async def test_stream_slots_refuse_past_the_max_and_free_on_exit() -> None:
    slots = StreamSlots(max_per_user=2)

    async with slots.acquire("alice"), slots.acquire("alice"):
        with pytest.raises(TooManyStreams, match="'alice'"):
            async with slots.acquire("alice"):
                pass
        async with slots.acquire("bob"):
            assert slots.open_count("bob") == 1
        assert slots.open_count("alice") == 2

    assert slots.open_count("alice") == 0


async def test_stream_slot_is_given_back_when_the_stream_fails() -> None:
    slots = StreamSlots(max_per_user=1)

    with pytest.raises(RuntimeError, match="upstream"):
        async with slots.acquire("alice"):
            raise RuntimeError("upstream broke")

    assert slots.open_count("alice") == 0


async def test_concurrent_streams_get_at_most_the_max_slots() -> None:
    slots = StreamSlots(max_per_user=3)
    release = asyncio.Event()

    async def stream() -> bool:
        try:
            async with slots.acquire("alice"):
                await release.wait()
        except TooManyStreams:
            return False
        return True

    tasks = [asyncio.create_task(stream()) for _ in range(10)]
    await asyncio.sleep(0.05)
    held_while_open = slots.open_count("alice")
    release.set()
    results = await asyncio.gather(*tasks)

    assert held_while_open == 3
    assert results.count(True) == 3
    assert slots.open_count("alice") == 0


def test_a_refusal_names_what_was_counted_its_limit_and_the_wait() -> None:
    limiter = InProcessRateLimiter(parse_rate_limit("1/minute"))
    limiter.hit("search:ada")

    refused = limiter.hit("search:ada")

    assert not refused.allowed
    assert over_limit("searches", "1/minute", refused) == (
        f"too many searches: the limit is 1/minute; retry in {refused.retry_after_s} s"
    )


async def test_from_the_event_loop_only_redis_is_asked_from_a_worker_thread(
    make_limiter: MakeLimiter,
) -> None:
    limiter = make_limiter("2/minute")
    loop_thread = threading.get_ident()
    asked_from: list[int] = []
    hit = limiter.hit

    def recorded(key: str) -> Decision:
        asked_from.append(threading.get_ident())
        return hit(key)

    limiter.hit = recorded  # type: ignore[method-assign]  # to see which thread asks

    decisions = [await hit_async(limiter, "search:10.0.0.1") for _ in range(3)]

    assert [d.allowed for d in decisions] == [True, True, False]
    in_loop = isinstance(limiter, InProcessRateLimiter)
    assert [t == loop_thread for t in asked_from] == [in_loop] * 3
