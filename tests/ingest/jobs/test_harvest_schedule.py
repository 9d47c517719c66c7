"""The scheduled harvest is a periodic job of the queue: a worker defers it on its schedule
and runs the harvest round it was given, once per scheduled time however many workers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from ingest.index.records import Paper
from ingest.jobs.queue import QUEUE, counts, open_queue, prepare
from ingest.jobs.tasks import HARVEST, HARVEST_ROUND
from tests.conftest import postgres_schema

pytestmark = pytest.mark.integration


@pytest.fixture
def url() -> Iterator[str]:
    with postgres_schema() as url:
        prepare(url)
        yield url


async def _run_workers_until(url: str, rounds: list[str], wanted: int, workers: int) -> None:
    """`workers` workers on an every-second harvest schedule, until `wanted` rounds ran."""
    app = open_queue(url, harvest_cron="* * * * * *")  # croniter's sixth field: seconds
    loop, enough = asyncio.get_running_loop(), asyncio.Event()

    def harvest_round() -> list[Paper]:  # in the worker's thread for sync tasks
        rounds.append("round")
        if len(rounds) >= wanted:
            loop.call_soon_threadsafe(enough.set)
        return []  # arXiv had nothing new

    async with app.open_async():
        running = [
            asyncio.create_task(
                app.run_worker_async(
                    queues=[QUEUE],
                    name=f"w{n}",
                    additional_context={HARVEST_ROUND: harvest_round},
                    install_signal_handlers=False,
                )
            )
            for n in range(workers)
        ]
        await asyncio.wait_for(enough.wait(), timeout=60)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


def test_workers_harvest_once_per_scheduled_time(url: str) -> None:
    rounds: list[str] = []

    asyncio.run(_run_workers_until(url, rounds, wanted=3, workers=2))

    app = open_queue(url)
    with app.open():
        found = counts(app)
        rows = app.connector.get_sync_connector().execute_query_all(
            "SELECT task_name, args->>'timestamp' AS at FROM procrastinate_jobs"
        )
    assert {r["task_name"] for r in rows} == {HARVEST}
    times = [r["at"] for r in rows]
    assert len(times) == len(set(times))  # one job per scheduled second, not one per worker
    assert found["succeeded"] >= len(rounds) >= 3


def test_a_scheduled_time_older_than_one_deferred_is_not_deferred_again(url: str) -> None:
    # A worker still on an older scheduled time asks after another worker deferred a newer
    # one (which made procrastinate forget the older): no second job for the older time.
    app = open_queue(url, harvest_cron="* * * * * *")

    async def defer(timestamp: int) -> int | None:
        job = app.tasks[HARVEST].configure(task_kwargs={"timestamp": timestamp}).job
        return await app.job_manager.defer_periodic_job(job, HARVEST, timestamp)

    async def scenario() -> list[int | None]:
        async with app.open_async():
            return [await defer(t) for t in (100, 101, 100, 101, 102)]

    first, second, older, same, third = asyncio.run(scenario())
    assert None not in (first, second, third)
    assert (older, same) == (None, None)
