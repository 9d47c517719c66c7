"""`paperchat worker`: take ingest jobs from the queue in PostgreSQL and run them.

Run one on each machine that ingests; they share the queue, the catalog (both in
PAPERCHAT_DATABASE_URL) and Chroma (PAPERCHAT_CHROMA_URL). SIGTERM or Ctrl-C: no new job is
taken, the running ones finish, then it exits. A worker also puts back the jobs of workers
whose heartbeat is older than the lease (`ingest/jobs/leases.py`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from chat.cli.main import CommandError, data_dir_option, settings_for, wiring_for
from ingest.jobs.leases import LEASE_S

if TYPE_CHECKING:
    import procrastinate

    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.index.records import Paper
    from ingest.jobs.tasks import Resources
    from ingest.sources.arxiv_api import ArxivClient


@click.command()
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Jobs run at once by this worker.",
)
@click.option(
    "--lease",
    type=click.FloatRange(min=1),
    default=LEASE_S,
    show_default=True,
    help="Seconds without a heartbeat after which a worker's jobs go to another.",
)
@click.option(
    "--harvest",
    "harvest_cron",
    default=None,
    metavar="CRON",
    help="Harvest the followed categories on this schedule, e.g. '0 */6 * * *'.",
)
@data_dir_option
def worker(concurrency: int, lease: float, harvest_cron: str | None, data_dir: Path | None) -> None:
    """Run ingest jobs from the queue (`paperchat jobs enqueue ...`) until stopped."""
    from ingest.jobs.queue import open_queue, prepare
    from ingest.jobs.tasks import HARVEST_ROUND, RESOURCES
    from ingest.jobs.working import work

    settings = settings_for(data_dir)
    url = queue_url(settings)
    prepare(url)
    index = wiring_for(data_dir)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    click.echo("worker: loading the embedding model", err=True)
    context = {RESOURCES: _resources(index, settings), HARVEST_ROUND: _harvest(settings)}
    app = open_queue(url, harvest_cron)
    try:
        asyncio.run(_opened(app, work(app, context, concurrency, lease)))
    finally:
        index.close()
    click.echo("worker: stopped", err=True)


def queue_url(settings: Settings) -> str:
    """The queue's database: PAPERCHAT_DATABASE_URL, which must name PostgreSQL."""
    if not settings.shared_catalog:
        raise CommandError(
            "the ingest queue needs PAPERCHAT_DATABASE_URL to name PostgreSQL"
            " (the queue and the catalog the workers share live there)"
        )
    return settings.database_url


def _harvest(settings: Settings) -> Callable[[], list[Paper]]:
    """The newest papers of the followed categories, asked as `paperchat harvest` asks."""
    from chat.cli.harvest import HARVEST_MAX, followed_categories, newest

    def papers() -> list[Paper]:
        categories = followed_categories(settings)
        if not categories:
            return []
        with _arxiv(settings) as client:
            return [p for category in categories for p in newest(client, category, HARVEST_MAX)]

    return papers


def _arxiv(settings: Settings) -> ArxivClient:
    from ingest.sources.arxiv_api import ArxivClient

    return ArxivClient(
        api_url=settings.arxiv_api_url,
        pdf_base_url=settings.arxiv_pdf_url,
        interval=settings.arxiv_interval_s,
    )


def _resources(index: Wiring, settings: Settings) -> Resources:
    from ingest.jobs.tasks import Resources
    from ingest.pdf.store import PdfStore

    embedder = index.embedder
    return Resources(
        open_catalog=index.open_catalog,
        store=index.store,
        lexical=None,  # a shared catalog's lexical indexes are the serving nodes' replicas
        embed=embedder.embed,
        count_tokens=embedder.count_tokens,
        arxiv=functools.partial(_arxiv, settings),
        pdf_dir=settings.data_dir / "pdfs",
        pdf_store=PdfStore(settings.pdf_store_path),
        pdf_timeout_s=settings.pdf_timeout_s,
        pdf_max_mb=settings.pdf_max_mb,
        max_record_bytes=settings.max_record_bytes,
    )


async def _opened(app: procrastinate.App, running: Coroutine[Any, Any, None]) -> None:
    async with app.open_async():
        await running
