"""Leases on PostgreSQL: a job taken back from a worker that stopped beating, the catalog
commit of a worker that lost its job refused, a lost job's row left to its new owner, and
failed jobs queued again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import procrastinate
import pytest
from procrastinate import jobs

from ingest.index.catalog import Catalog
from ingest.jobs.leases import MOST_RUNS, LeaseLost, Reclaimed, lease_guard, reclaim_stalled
from ingest.jobs.queue import counts, open_queue, prepare, retry_failed
from ingest.jobs.tasks import INGEST_PDF
from tests.conftest import postgres_schema

pytestmark = pytest.mark.integration


@pytest.fixture
def url() -> Iterator[str]:
    """A fresh PostgreSQL schema holding the queue's tables and a catalog."""
    with postgres_schema() as url:
        prepare(url)
        yield url


def _take(app: procrastinate.App) -> tuple[jobs.Job, int]:
    """Register a worker and let it fetch the next job, as a worker process does."""

    async def take() -> tuple[jobs.Job, int]:
        async with app.open_async():
            worker = await app.job_manager.register_worker()
            job = await app.job_manager.fetch_job(queues=None, worker_id=worker)
            assert job is not None
            return job, worker

    return asyncio.run(take())


def _reclaim(app: procrastinate.App, lease_s: float) -> list[int]:
    """The jobs put back to the queue."""
    return _reclaimed(app, lease_s).queued


def _reclaimed(app: procrastinate.App, lease_s: float) -> Reclaimed:
    async def reclaim() -> Reclaimed:
        async with app.open_async():
            return await reclaim_stalled(app, lease_s)

    return asyncio.run(reclaim())


def _finish(app: procrastinate.App, job: jobs.Job) -> None:
    async def finish() -> None:
        async with app.open_async():
            await app.job_manager.finish_job(job, jobs.Status.SUCCEEDED, delete_job=False)

    asyncio.run(finish())


def _queue_one(url: str) -> procrastinate.App:
    app = open_queue(url)
    with app.open():
        app.tasks[INGEST_PDF].defer(path="/nowhere.pdf")
    return app


def test_prepare_twice_keeps_the_queue(url: str) -> None:
    app = _queue_one(url)

    prepare(url)

    with app.open():
        assert counts(app)["todo"] == 1


def test_guard_lets_the_owner_commit(url: str) -> None:
    app = _queue_one(url)
    job, worker = _take(app)
    catalog = Catalog(url)
    assert job.id is not None

    with catalog.transaction(lease_guard(job.id, worker)):
        catalog.set_meta("probe", "committed")

    assert catalog.get_meta("probe") == "committed"
    catalog.close()


def test_job_of_a_silent_worker_goes_to_another_and_its_commit_is_refused(url: str) -> None:
    app = _queue_one(url)
    job, first = _take(app)
    assert job.id is not None
    catalog = Catalog(url)

    taken = _reclaim(app, 0.0)  # every heartbeat is older than a lease of 0 s
    again, second = _take(app)

    assert taken == [job.id]
    assert again.id == job.id
    assert again.worker_id == second != first
    with (
        pytest.raises(LeaseLost, match="no longer worker"),
        catalog.transaction(lease_guard(job.id, first)),
    ):
        catalog.set_meta("probe", "late")
    assert catalog.get_meta("probe") is None
    with catalog.transaction(lease_guard(job.id, second)):
        catalog.set_meta("probe", "owner")
    assert catalog.get_meta("probe") == "owner"
    catalog.close()


def test_a_worker_that_lost_its_job_is_refused_before_it_writes(url: str) -> None:
    app = _queue_one(url)
    job, first = _take(app)
    assert job.id is not None
    _reclaim(app, 0.0)
    _take(app)
    catalog = Catalog(url)
    written: list[str] = []

    with (
        pytest.raises(LeaseLost, match="no longer worker"),
        catalog.transaction(lease_guard(job.id, first)),
    ):
        written.append("body ran")

    assert written == []
    catalog.close()


def test_a_beating_worker_keeps_its_job(url: str) -> None:
    app = _queue_one(url)
    _take(app)

    taken = _reclaim(app, 60.0)

    assert taken == []
    with app.open():
        assert counts(app)["doing"] == 1


def test_a_lost_job_is_left_to_its_new_owner(url: str) -> None:
    app = _queue_one(url)
    lost, _first = _take(app)
    _reclaim(app, 0.0)
    owned, _second = _take(app)

    _finish(app, lost)  # the first worker wakes up and would mark the job done

    with app.open():
        assert counts(app)["doing"] == 1
    _finish(app, owned)
    with app.open():
        assert counts(app)["succeeded"] == 1


def test_a_reclaim_waits_for_a_commit_that_passed_the_guard(url: str) -> None:
    app = _queue_one(url)
    job, worker = _take(app)
    assert job.id is not None
    catalog = Catalog(url)
    guard = lease_guard(job.id, worker)

    catalog.db.begin()
    guard(catalog.db)  # the job's row is locked until the catalog commits
    during = _reclaim(app, 0.0)
    catalog.db.commit()
    after = _reclaim(app, 0.0)

    assert during == []
    assert after == [job.id]
    catalog.close()


def test_failed_jobs_are_queued_again(url: str) -> None:
    app = _queue_one(url)
    job, _worker = _take(app)

    async def fail() -> None:
        async with app.open_async():
            await app.job_manager.finish_job(job, jobs.Status.FAILED, delete_job=False)

    asyncio.run(fail())
    with app.open():
        failed = counts(app)["failed"]
        again = retry_failed(app)
        after = counts(app)

    assert failed == 1
    assert again == [job.id]
    assert (after["todo"], after["failed"]) == (1, 0)


def test_a_job_that_lost_every_worker_fails_instead_of_killing_more(url: str) -> None:
    app = _queue_one(url)
    outcomes = []

    for _ in range(MOST_RUNS):
        job, _worker = _take(app)  # and the worker dies
        outcomes.append(_reclaimed(app, 0.0))

    assert [o.queued for o in outcomes[:-1]] == [[job.id]] * (MOST_RUNS - 1)
    assert (outcomes[-1].queued, outcomes[-1].failed) == ([], [job.id])
    with app.open():
        assert (counts(app)["failed"], counts(app)["todo"]) == (1, 0)
