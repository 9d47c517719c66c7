"""A worker taken for dead while it was paused (its registration pruned by another worker's
start) registers again when it wakes, and goes on taking jobs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from ingest.jobs import working
from ingest.jobs.queue import counts, open_queue, prepare
from ingest.jobs.tasks import INGEST_PDF
from tests.conftest import postgres_schema

pytestmark = pytest.mark.integration


@pytest.fixture
def url() -> Iterator[str]:
    with postgres_schema() as url:
        prepare(url)
        yield url


async def _until(check: Callable[[], Awaitable[list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """The first non-empty answer of `check`, asked every 0.1 s for up to 30 s."""
    for _ in range(300):
        if found := await check():
            return found
        await asyncio.sleep(0.1)
    pytest.fail("timed out")


async def _pruned_then_job(url: str) -> tuple[list[int], list[int]]:
    """Run a worker, remove its registration, queue a job; the worker ids before and after."""
    app = open_queue(url)
    query = app.connector.execute_query_all_async

    async def workers() -> list[dict[str, Any]]:
        return await query("SELECT id FROM procrastinate_workers")

    async def taken() -> list[dict[str, Any]]:
        return await query("SELECT id FROM procrastinate_jobs WHERE status <> 'todo'")

    async with app.open_async():
        running = asyncio.create_task(working.work(app, {}, signals=False))
        before = await _until(workers)
        await app.connector.execute_query_async("DELETE FROM procrastinate_workers")
        await app.tasks[INGEST_PDF].defer_async(path="/nowhere.pdf")
        await _until(taken)
        after = await _until(workers)
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    return [r["id"] for r in before], [r["id"] for r in after]


def test_a_pruned_worker_registers_again_and_takes_jobs(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(working, "RESTART_AFTER_S", 0.1)

    before, after = asyncio.run(_pruned_then_job(url))

    assert len(before) == len(after) == 1
    assert after != before
    app = open_queue(url)
    with app.open():
        found = counts(app)
    assert found["todo"] == 0
    assert found["failed"] + found["succeeded"] == 1  # taken (it names no PDF, so it fails)
