"""Keeps this node's lexical index following the shared catalog while the app runs.

With a catalog in PostgreSQL, ingest on any machine writes the catalog and
Chroma but no node's lexical index; each serving node applies the catalog's
change log to its own (`ingest/index/lexical/replica.py`), every `INTERVAL_S`.
A failed step (the database away for a moment) is logged and tried again
at the next tick; `/api/health` shows how far behind the replica is.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from chat.service.ticking import ticking
from ingest.errors import PaperchatError
from ingest.index.lexical.replica import LexicalReplica

logger = logging.getLogger("paperchat.service")

INTERVAL_S = 2.0


def catch_up(replica: LexicalReplica) -> None:
    """Apply the change log as far as it goes; a failure is logged, to be tried again."""
    try:
        while replica.catch_up() > 0:
            pass  # more than one batch behind: go on at once
    except (PaperchatError, OSError, ValueError) as e:
        logger.warning("the lexical index could not follow the catalog: %s", e)
    except Exception:
        logger.exception("the lexical index could not follow the catalog")


@asynccontextmanager
async def following(replica: LexicalReplica | None) -> AsyncIterator[None]:
    """Follow the change log in the background for the length of the block (when the
    catalog is shared; `replica` None otherwise). Leaving waits for a catch-up in progress,
    so the index is not closed under it."""
    if replica is None:
        yield
        return
    async with ticking(lambda: catch_up(replica), INTERVAL_S):
        yield
