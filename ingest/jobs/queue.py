"""The ingest queue: a procrastinate app on the shared PostgreSQL database.

The jobs live in the same database as the catalog, so a job's ownership is checked inside
the catalog's own commit (`ingest/jobs/leases.py`). A worker finishes or retries only a job
that is still its own: a worker that lost a job's lease while paused leaves the job's row to
its new owner instead of marking it failed or done.
"""

from __future__ import annotations

import logging
from typing import Any

import procrastinate
import psycopg
from procrastinate import exceptions, jobs, manager, schema, utils
from sqlalchemy.engine import make_url

from ingest.errors import PaperchatError

QUEUE = "ingest"
# The job states `paperchat jobs status` counts, in procrastinate's names.
STATES = ("todo", "doing", "succeeded", "failed", "cancelled", "aborted")

# Tables of the queue beside procrastinate's: the units each job has written, for its
# recovery after a crash (`ingest/jobs/recovery.py`).
_OWN_SCHEMA = """
CREATE TABLE IF NOT EXISTS paperchat_job_units (
    job_id bigint NOT NULL REFERENCES procrastinate_jobs (id) ON DELETE CASCADE,
    paper_id text NOT NULL,
    kind text NOT NULL,
    PRIMARY KEY (job_id, paper_id, kind)
);

-- The periodic harvest's deferral, one worker at a time: procrastinate's own forgets a
-- scheduled time once a newer one is deferred, so a worker still on the older time would
-- defer it again (a second harvest for one scheduled time).
CREATE OR REPLACE FUNCTION paperchat_defer_periodic_job(
    _queue_name varchar, _lock varchar, _queueing_lock varchar, _task_name varchar,
    _priority integer, _periodic_id varchar, _defer_timestamp bigint, _args jsonb
) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(
        hashtext('paperchat:periodic:' || _task_name || ':' || _periodic_id)
    );
    IF EXISTS (
        SELECT 1 FROM procrastinate_periodic_defers
        WHERE task_name = _task_name AND periodic_id = _periodic_id
        AND defer_timestamp >= _defer_timestamp
    ) THEN
        RETURN NULL;
    END IF;
    RETURN procrastinate_defer_periodic_job_v2(
        _queue_name, _lock, _queueing_lock, _task_name, _priority, _periodic_id,
        _defer_timestamp, _args
    );
END;
$$;
"""

_DEFER_PERIODIC = """
SELECT paperchat_defer_periodic_job(
    %(queue)s, %(lock)s, %(queueing_lock)s, %(task_name)s, %(priority)s, %(periodic_id)s,
    %(defer_timestamp)s, %(args)s
) AS id
"""

_FINISH_OWNED = """
WITH owned AS (
    SELECT id FROM procrastinate_jobs
    WHERE id = %(job_id)s AND status = 'doing' AND worker_id = %(worker_id)s
    FOR UPDATE
)
SELECT id, procrastinate_finish_job_v1(id, %(status)s, %(delete_job)s)::text FROM owned
"""

_RETRY_OWNED = """
WITH owned AS (
    SELECT id FROM procrastinate_jobs
    WHERE id = %(job_id)s AND status = 'doing' AND worker_id = %(worker_id)s
    FOR UPDATE
)
SELECT id, procrastinate_retry_job_v2(
    id, %(retry_at)s, %(priority)s, %(queue)s, %(lock)s
)::text FROM owned
"""


_log = logging.getLogger(__name__)


class QueueUnavailable(PaperchatError):
    """The queue's database is not configured or cannot be reached."""


def conninfo(database_url: str) -> str:
    """The libpq connection string of a PostgreSQL URL (SQLAlchemy's `+psycopg` dropped)."""
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        raise QueueUnavailable(
            "the ingest queue needs PostgreSQL: set PAPERCHAT_DATABASE_URL to a "
            f"postgresql:// URL (it is {url.render_as_string(hide_password=True)!r})"
        )
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


class OwnedJobManager(manager.JobManager):
    """Finishes and retries a fetched job only while it is still the fetching worker's, and
    defers a periodic job once per scheduled time however many workers keep the schedule."""

    async def defer_periodic_job(
        self, job: jobs.Job, periodic_id: str, defer_timestamp: int
    ) -> int | None:
        if job.task_kwargs.get("timestamp") != defer_timestamp:
            raise exceptions.InvalidTimestamp
        try:
            result = await self.connector.execute_query_one_async(
                query=_DEFER_PERIODIC,
                task_name=job.task_name,
                defer_timestamp=defer_timestamp,
                periodic_id=periodic_id,
                queue=job.queue,
                priority=job.priority,
                lock=job.lock,
                queueing_lock=job.queueing_lock,
                args=job.task_kwargs,
            )
        except exceptions.UniqueViolation as e:
            self._raise_already_enqueued(exc=e, queueing_lock=job.queueing_lock)
        found: int | None = result["id"]
        return found

    async def finish_job(self, job: jobs.Job, status: jobs.Status, delete_job: bool) -> None:
        await self._owned(
            _FINISH_OWNED, job, status=status.value, delete_job=delete_job, action="finish"
        )

    async def retry_job(
        self,
        job: jobs.Job,
        retry_at: Any = None,
        priority: int | None = None,
        queue: str | None = None,
        lock: str | None = None,
    ) -> None:
        await self._owned(
            _RETRY_OWNED,
            job,
            retry_at=retry_at or utils.utcnow(),
            priority=priority,
            queue=queue,
            lock=lock,
            action="retry",
        )

    async def _owned(self, query: str, job: jobs.Job, action: str, **params: Any) -> None:
        rows = await self.connector.execute_query_all_async(
            query=query, job_id=job.id, worker_id=job.worker_id, **params
        )
        if not rows:
            _log.warning(
                "job %s is no longer this worker's (its lease was lost): not %sed here",
                job.id,
                action,
            )


def open_queue(database_url: str, harvest_cron: str | None = None) -> procrastinate.App:
    """The queue's app on `database_url`, its tasks registered (`ingest/jobs/tasks.py`), the
    harvest scheduled on `harvest_cron` when given. Open it (`with app.open():`) to use it."""
    connector = procrastinate.PsycopgConnector(conninfo=conninfo(database_url))
    app = procrastinate.App(connector=connector)
    app.job_manager = OwnedJobManager(connector=connector)
    _register_tasks(app, harvest_cron)
    return app


def _register_tasks(app: procrastinate.App, harvest_cron: str | None) -> None:
    """Put the tasks on this queue; the harvest runs on `harvest_cron` (a cron line) when
    given."""
    # Imported here: the tasks bring the ingest pipeline (seconds to import), which the
    # commands that only count or retry jobs do not need.
    from ingest.jobs import tasks

    for name, func in (
        (tasks.INGEST_BATCH, tasks.ingest_batch),
        (tasks.INGEST_PDF, tasks.ingest_pdf),
        (tasks.INGEST_ARXIV, tasks.ingest_arxiv),
    ):
        app.task(name=name, queue=QUEUE, pass_context=True)(func)
    harvest = app.task(name=tasks.HARVEST, queue=QUEUE, pass_context=True)(tasks.harvest_categories)
    if harvest_cron is not None:
        app.periodic(cron=harvest_cron, periodic_id=tasks.HARVEST)(harvest)


def prepare(database_url: str) -> None:
    """Create the queue's tables when the database has none. Several workers may start at
    once, so it is done under an advisory lock."""
    try:
        connection = psycopg.connect(conninfo(database_url), autocommit=True)
    except psycopg.OperationalError as e:
        raise QueueUnavailable(f"cannot reach the queue's database: {e}") from e
    with connection:
        connection.execute("SELECT pg_advisory_lock(hashtext('paperchat:queue-schema'))")
        found = connection.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
        if found is None or found[0] is None:
            connection.execute(schema.SchemaManager.get_schema().encode())
        connection.execute(_OWN_SCHEMA.encode())
        connection.execute("SELECT pg_advisory_unlock(hashtext('paperchat:queue-schema'))")


def counts(app: procrastinate.App) -> dict[str, int]:
    """Jobs per state, every state named (0 when none)."""
    rows = app.connector.get_sync_connector().execute_query_all(
        "SELECT status::text AS status, count(*) AS n FROM procrastinate_jobs GROUP BY status"
    )
    found = {str(r["status"]): int(r["n"]) for r in rows}
    return {state: found.get(state, 0) for state in STATES}


def retry_failed(app: procrastinate.App) -> list[int]:
    """Queue every failed job again (a job run again first puts right its own units);
    their ids."""
    rows = app.connector.get_sync_connector().execute_query_all(
        "SELECT id, procrastinate_retry_job_v2(id, now(), NULL, NULL, NULL)::text"
        " FROM procrastinate_jobs WHERE status = 'failed' ORDER BY id"
    )
    return [int(r["id"]) for r in rows]
