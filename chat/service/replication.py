"""Keeps this node's lexical index following the shared catalog while the app runs.

With a catalog in PostgreSQL, ingest on any machine writes the catalog and
Chroma but no node's lexical index; each serving node applies the catalog's
change log to its own (`ingest/index/lexical/replica.py`), every `INTERVAL_S`.
A failed step (the database away for a moment) is logged and tried again
at the next tick; `/api/health` shows how far behind the replica is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from ingest.errors import PaperchatError
from ingest.index.lexical.replica import LexicalReplica

logger = logging.getLogger("paperchat.service")

INTERVAL_S = 2.0


async def follow(replica: LexicalReplica, interval_s: float = INTERVAL_S) -> None:
    """Apply the change log until cancelled."""
    while True:
        try:
            while await asyncio.to_thread(replica.catch_up) > 0:
                pass  # more than one batch behind: go on at once
        except (PaperchatError, OSError, ValueError) as e:
            logger.warning("the lexical index could not follow the catalog: %s", e)
        except Exception:
            logger.exception("the lexical index could not follow the catalog")
        await asyncio.sleep(interval_s)


@asynccontextmanager
async def following(replica: LexicalReplica | None) -> AsyncIterator[None]:
    """Follow the change log in the background for the length of the block (when the
    catalog is shared; `replica` None otherwise)."""
    if replica is None:
        yield
        return
    task = asyncio.create_task(follow(replica), name="lexical-replica")
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
