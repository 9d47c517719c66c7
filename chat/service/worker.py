"""What a worker process sets up before it serves: the threads of its blocking work, and a
warm-up retrieval.

A question's retrieval and extractive answer, counting its tokens and finding what its
citations quote run in threads (`asyncio.to_thread`), off the event loop, and so do the
catalog reads of some pages. Those threads are `PAPERCHAT_WORKER_THREADS` (default 2), not
the interpreter's default of the cores plus four: under one interpreter lock, six
retrievals at once each go at a sixth of the speed and all finish late, while two take
the questions nearly in the order they came. Measured with `bench.speed.serve` over the
full index, 100 streams at once on two cores and two workers, runs in turns on a busy
machine: the first word's p50 / p99 came 4.1-4.8 / 7.1-7.8 s after the question with two
threads against 6.5-7.5 / 9.7-10.8 s with the default.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from chat.rag.retrieval.retriever import Retriever
from chat.wiring import Wiring

logger = logging.getLogger("paperchat.app")

# Retrieved at startup: a question with a name, on its way through every search.
WARM_UP_QUESTION = "How does RAG combine a retriever with a generator?"


def use_worker_threads(threads: int) -> None:
    """Make `threads` threads the running loop's executor for `asyncio.to_thread` (the loop
    shuts them down when it closes, as it would its default ones)."""
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="paperchat-work")
    asyncio.get_running_loop().set_default_executor(pool)


def warm_up(index: Wiring) -> None:
    """Load the answerer (a broken index raises here) and retrieve `WARM_UP_QUESTION`: the
    first question then pays for none of what a retrieval reads once (the catalog's titles,
    English word frequencies, the vector index's files: 1.7 s of CPU over the full library).
    Without the remote reranker: startup waits for no other server."""
    found = index.answerer.retriever
    names, searches = found.name_catalog, (found.catalog, found.store, found.lexical)
    try:
        Retriever(*searches, found.embedder, found.config, names=names).retrieve(WARM_UP_QUESTION)
    except Exception:  # the worker serves on; its questions meet the failure as before
        logger.exception("the warm-up retrieval failed")
