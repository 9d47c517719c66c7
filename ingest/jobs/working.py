"""A worker process's loop: procrastinate's worker on the ingest queue, beside it the round
that puts back the jobs of silent workers, and a fresh start after a database error.

A worker paused past its lease may find, when it wakes, that another worker starting
meanwhile removed its registration (procrastinate prunes workers whose heartbeat is old);
taking its next job then fails on the database. The worker registers again and goes on,
as it does after the database was briefly unreachable.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from typing import Any

import procrastinate
from procrastinate.exceptions import ConnectorException

from ingest.jobs.leases import LEASE_S, MOST_RUNS, heartbeat_interval, reclaim_stalled
from ingest.jobs.queue import QUEUE

RESTART_AFTER_S = 5.0
_log = logging.getLogger(__name__)


async def work(
    app: procrastinate.App,
    context: dict[str, Any],
    concurrency: int = 1,
    lease_s: float = LEASE_S,
    *,
    signals: bool = True,
) -> None:
    """Run jobs until stopped (SIGTERM or SIGINT when `signals`, else cancelled): the
    running jobs finish first. `context` is handed to every job; `app` must be open."""
    reclaiming = asyncio.create_task(_reclaim(app, lease_s))
    try:
        while True:
            try:
                await _run(app, context, concurrency, lease_s, signals)
                return
            except ConnectorException as e:
                reason = e.__cause__ or e
                _log.warning(
                    "the worker stopped on a database error (%s); starting again in %.0f s",
                    str(reason).strip(),
                    RESTART_AFTER_S,
                )
                await asyncio.sleep(RESTART_AFTER_S)
    finally:
        reclaiming.cancel()


async def _run(
    app: procrastinate.App,
    context: dict[str, Any],
    concurrency: int,
    lease_s: float,
    signals: bool,
) -> None:
    await app.run_worker_async(
        queues=[QUEUE],
        name=f"{socket.gethostname()}:{os.getpid()}",
        concurrency=concurrency,
        additional_context=context,
        update_heartbeat_interval=heartbeat_interval(lease_s),
        stalled_worker_timeout=lease_s,
        install_signal_handlers=signals,
    )


async def _reclaim(app: procrastinate.App, lease_s: float) -> None:
    """Every heartbeat interval, put back the jobs of workers that lost their lease."""
    while True:
        await asyncio.sleep(heartbeat_interval(lease_s))
        try:
            taken = await reclaim_stalled(app, lease_s)
        except ConnectorException as e:
            _log.warning("putting back stalled jobs failed: %s", e.__cause__ or e)
            continue
        if taken.queued:
            _log.info("put back the jobs of silent workers: %s", _ids(taken.queued))
        if taken.failed:
            _log.warning(
                "failed the jobs that lost %d workers: %s (`paperchat jobs retry` runs them again)",
                MOST_RUNS,
                _ids(taken.failed),
            )


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids))
