"""Leases: a job is a worker's while the worker's heartbeat is fresh.

A worker writes its heartbeat every few seconds (procrastinate's `procrastinate_workers`).
A job whose worker has not written one for the lease's length is taken back to `todo`
(`reclaim_stalled`), whichever worker notices first, and another worker takes it. The
worker that lost it may still be alive (paused, cut off): its late commit is refused by the
guard the catalog runs inside its commit transaction (`lease_guard`), which locks the job's
row and checks the job is still `doing` and still this worker's. The lock holds until the
catalog commits, so a reclaim waits for a commit that passed the check, and a commit waits
for a reclaim that came first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ingest.errors import PaperchatError

if TYPE_CHECKING:
    import procrastinate

    from ingest.index.tables.database import CatalogDb, CommitGuard

# A job's worker that has written no heartbeat for this long has lost it.
LEASE_S = 30.0
# A job whose worker died this many times is failed instead of put back: it may be what
# kills them (a PDF that exhausts memory), and would take every worker down in turn.
MOST_RUNS = 3

_RECLAIM = """
WITH stalled AS (
    SELECT job.id, job.attempts FROM procrastinate_jobs job
    LEFT JOIN procrastinate_workers worker ON worker.id = job.worker_id
    WHERE job.status = 'doing'
      AND (worker.id IS NULL OR worker.last_heartbeat < now() - make_interval(secs => %(lease)s))
    FOR UPDATE OF job SKIP LOCKED
)
SELECT id, attempts + 1 >= %(most)s AS failed,
    CASE WHEN attempts + 1 >= %(most)s
        THEN procrastinate_finish_job_v1(id, 'failed', false)::text
        ELSE procrastinate_retry_job_v2(id, now(), NULL, NULL, NULL)::text
    END
FROM stalled
"""


class LeaseLost(PaperchatError):
    """A job's commit refused: the job is no longer this worker's."""


def heartbeat_interval(lease_s: float) -> float:
    """How often a worker writes its heartbeat: several times per lease."""
    return max(lease_s / 5, 0.5)


def lease_guard(job_id: int, worker_id: int) -> CommitGuard:
    """A commit guard for the catalog (`Catalog.transaction(guard)`): refuses the commit
    unless job `job_id` is still `doing` and owned by worker `worker_id`. It runs in the
    catalog's transaction, so the catalog must be in the queue's PostgreSQL database."""

    def guard(db: CatalogDb) -> None:
        if db.dialect != "postgresql":
            raise LeaseLost(
                f"job {job_id}: the catalog ({db.where}) is not in the queue's database"
            )
        row = db.execute(
            "SELECT status::text, worker_id FROM procrastinate_jobs WHERE id = ? FOR UPDATE",
            (job_id,),
        ).fetchone()
        if row is None:
            raise LeaseLost(f"job {job_id} is gone from the queue")
        status, owner = str(row[0]), row[1]
        if status != "doing" or owner != worker_id:
            raise LeaseLost(
                f"job {job_id} is no longer worker {worker_id}'s (now {status},"
                f" worker {owner}): its commit is refused"
            )

    return guard


@dataclass(frozen=True)
class Reclaimed:
    """The jobs taken from silent workers: put back to the queue, or failed for good."""

    queued: list[int]
    failed: list[int]


async def reclaim_stalled(
    app: procrastinate.App, lease_s: float = LEASE_S, most_runs: int = MOST_RUNS
) -> Reclaimed:
    """Take every running job whose worker's heartbeat is older than the lease (or whose
    worker is gone): back to `todo`, or `failed` when it has now lost `most_runs` workers."""
    rows = await app.connector.execute_query_all_async(
        query=_RECLAIM, lease=lease_s, most=most_runs
    )
    return Reclaimed(
        queued=[int(r["id"]) for r in rows if not r["failed"]],
        failed=[int(r["id"]) for r in rows if r["failed"]],
    )
