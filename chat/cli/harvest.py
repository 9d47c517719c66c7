"""`paperchat harvest [--every 6h]`: ask the arXiv API for the newest papers of the
categories users follow, add them to the index, and do it again every so often.

Politely: one request at a time, `PAPERCHAT_ARXIV_INTERVAL_S` (3 s) apart, waiting as long
as a `Retry-After` asks. The papers it adds become alerts of the follows that take them
the next time their users look (`chat/service/storage/alerts.py`).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chat.cli.main import data_dir_option, names_a_full_disk, settings_for, wiring_for

if TYPE_CHECKING:
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.index.records import Paper
    from ingest.report import IngestReport
    from ingest.sources.arxiv_api import ArxivClient

# The digests' links without PAPERCHAT_PUBLIC_URL: `paperchat serve`'s default address.
DIGEST_SITE_URL = "http://127.0.0.1:8000"
# The newest papers asked for per category in one round.
HARVEST_MAX = 100
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(value: str) -> float:
    """`6h`, `30m`, `1d`, `90s` in seconds; ValueError for anything else."""
    found = _DURATION.match(value)
    if found is None or float(found.group(1)) <= 0:
        raise ValueError(f"{value!r} is not a duration such as 6h, 30m or 1d")
    return float(found.group(1)) * _SECONDS[found.group(2)]


def _duration(_ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return parse_duration(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param=param) from e


@click.command()
@click.option(
    "--every",
    default=None,
    callback=_duration,
    help="Harvest again after this long (6h, 30m, 1d); once without it.",
)
@click.option(
    "--rounds", type=click.IntRange(min=1), default=None, help="Stop after this many harvests."
)
@click.option(
    "--max",
    "max_results",
    type=click.IntRange(min=1, max=2000),
    default=HARVEST_MAX,
    show_default=True,
    help="The newest papers asked for per category.",
)
@data_dir_option
@names_a_full_disk
def harvest(
    every: float | None, rounds: int | None, max_results: int, data_dir: Path | None
) -> None:
    """Add the newest arXiv papers of the followed categories to the index, now and then
    `--every` so often."""
    settings = settings_for(data_dir)
    done = 0
    bounced = False
    while True:
        categories = followed_categories(settings)
        if categories:
            _round(data_dir, settings, categories, max_results, keep_going=every is not None)
        else:
            click.echo("harvest: no category is followed; nothing to ask arXiv for")
        if settings.smtp_url is not None:
            bounced = _digests(data_dir, settings) or bounced
        done += 1
        if every is None or (rounds is not None and done >= rounds):
            if bounced:
                sys.exit(1)  # done, but some digests were refused for their address (listed)
            return
        time.sleep(every)


def _round(
    data_dir: Path | None,
    settings: Settings,
    categories: list[str],
    most: int,
    *,
    keep_going: bool,
) -> None:
    """One harvest; a scheduled one that fails says why and waits for the next."""
    from ingest.sources.arxiv_feed import ArxivApiError

    index = wiring_for(data_dir)
    try:
        report = harvest_once(index, settings, categories, most)
    except ArxivApiError as e:
        if not keep_going:
            raise
        click.echo(f"harvest: {e}; trying again at the next round", err=True)
        return
    finally:
        index.close()
    click.echo(f"harvest: {', '.join(categories)}: {report.summary()}")


def _digests(data_dir: Path | None, settings: Settings) -> bool:
    """Send the e-mail digests that are due (`chat/service/mail.py`); whether the server
    refused any for its recipient (each is listed, and the others are sent all the same)."""
    import asyncio

    from chat.service.mail import send_digests
    from chat.service.storage.db import create_database_engine, session_factory

    assert settings.smtp_url is not None
    engine = create_database_engine(settings.resolved_database_url)
    index = wiring_for(data_dir)
    try:
        done = asyncio.run(
            send_digests(
                session_factory(engine),
                index.catalog,
                settings.smtp_url.get_secret_value(),
                settings.smtp_sender,
                settings.public_url or DIGEST_SITE_URL,
                watcher=index.watcher,
            )
        )
    finally:
        index.close()
        engine.dispose()
    for address, answer in done.bounced:
        click.echo(f"harvest: the digest to {address} bounced: {answer}", err=True)
    refused = f", {len(done.bounced)} refused by the mail server" if done.bounced else ""
    click.echo(f"harvest: {done.sent} e-mail digests sent{refused}")
    return bool(done.bounced)


def followed_categories(settings: Settings) -> list[str]:
    """The categories users follow that arXiv has (a follow made before categories were
    checked may name none), in name order."""
    from sqlalchemy import select

    from chat.library.categories import arxiv_categories
    from chat.service.storage.db import create_database_engine, session_factory
    from chat.service.storage.tables import Follow

    engine = create_database_engine(settings.resolved_database_url)
    try:
        with session_factory(engine)() as session:
            query = select(Follow.value).where(Follow.kind == "category").distinct()
            return sorted(set(session.scalars(query)) & arxiv_categories())
    finally:
        engine.dispose()


def harvest_once(
    index: Wiring, settings: Settings, categories: list[str], most: int
) -> IngestReport:
    """Ask arXiv for each category's newest papers and ingest them. A failing request
    raises `ArxivApiError`."""
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.arxiv_api import ArxivClient, Harvested
    from ingest.sources.units import arxiv_items

    client = ArxivClient(
        api_url=settings.arxiv_api_url,
        pdf_base_url=settings.arxiv_pdf_url,
        interval=settings.arxiv_interval_s,
    )
    with client:
        papers = [p for category in categories for p in newest(client, category, most)]
    harvested: Iterable[Harvested] = (Harvested(p, None, None) for p in papers)
    report = IngestReport()
    items = arxiv_items(harvested, index.open_catalog(), index.embedder.count_tokens)
    Pipeline(index.catalog, index.indexer, index.embedder.embed, NoProgress()).run(items, report)
    return report


def newest(client: ArxivClient, category: str, most: int) -> tuple[Paper, ...]:
    """The category's `most` newest papers, by first submission, in one request."""
    from ingest.sources.arxiv_feed import ArxivApiError

    params: dict[str, str | int] = {
        "search_query": f"cat:{category}",
        "start": 0,
        "max_results": most,
        "sortBy": "submittedDate",
        "sortOrder": "descending",
    }
    page = client.query(params)
    if page.errors:
        raise ArxivApiError(f"arXiv rejected the category {category!r}: {page.errors[0]}")
    papers: tuple[Paper, ...] = page.papers
    return papers
