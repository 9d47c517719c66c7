"""The queue's tasks: a batch of metadata lines, one PDF, a few arXiv ids, the harvest.

Each job runs the ingest pipeline over its items with a `JobIndexer`: its commits are
refused once its lease is lost, and a job run again first puts right its own units. What a
task needs (the catalog, Chroma, the embedder) comes from the worker as `Resources`, in the
jobs' context; the worker builds them once.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from procrastinate import JobContext

from ingest.chunking import CountTokens
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.records import Paper
from ingest.index.vectors.store import ChunkStore
from ingest.index.writer import UnitWork
from ingest.jobs.batches import Batch, read_batch
from ingest.jobs.leases import lease_guard
from ingest.jobs.recovery import JobIndexer
from ingest.pdf.store import PdfStore
from ingest.pipeline import Embed, Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport, Skipped, Unchanged
from ingest.sources.arxiv_api import ArxivClient, Harvested, harvest
from ingest.sources.units import abstract_work, arxiv_items, pdf_items

INGEST_BATCH = "ingest_batch"
INGEST_PDF = "ingest_pdf"
INGEST_ARXIV = "ingest_arxiv"
HARVEST = "harvest"
RESOURCES = "resources"
# In the jobs' context: what the scheduled harvest ingests, the newest papers of the
# categories users follow (the `paperchat harvest` round's question to arXiv).
HARVEST_ROUND = "harvest_round"
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resources:
    """What the tasks of one worker process share."""

    open_catalog: Callable[[], Catalog]
    store: ChunkStore
    lexical: LexicalIndex | None
    embed: Embed
    count_tokens: CountTokens
    arxiv: Callable[[], ArxivClient]
    pdf_dir: Path
    # The PDFs every node reads, by SHA-256 (`ingest/pdf/store.py`).
    pdf_store: PdfStore | None
    pdf_timeout_s: float
    pdf_max_mb: int
    max_record_bytes: int


Items = Iterable[UnitWork | Skipped | Unchanged]


def run_job(context: JobContext, items: Callable[[Resources, Catalog], Items]) -> dict[str, Any]:
    """Run the pipeline over the job's items, every commit guarded by the job's lease."""
    resources: Resources = context.additional_context[RESOURCES]
    job = context.job
    assert job.id is not None  # a fetched job has its id and its worker's
    assert job.worker_id is not None
    catalog = resources.open_catalog()
    try:
        guard = lease_guard(job.id, job.worker_id)
        indexer = JobIndexer(catalog, resources.store, resources.lexical, job.id, guard)
        pipeline = Pipeline(
            catalog, indexer, resources.embed, NoProgress(), pdf_timeout_s=resources.pdf_timeout_s
        )
        report = pipeline.run(items(resources, catalog), IngestReport())
        indexer.forget()
    finally:
        catalog.close()
    _log.info("job %s: %s", job.id, report.summary())
    return report.as_json()


def ingest_batch(
    context: JobContext, path: str, offset: int, first_line: int, lines: int
) -> dict[str, Any]:
    """The abstracts of a batch of lines of a metadata file."""
    batch = Batch(path, offset, first_line, lines)

    def items(resources: Resources, _catalog: Catalog) -> Iterator[UnitWork | Skipped]:
        for item in read_batch(batch, resources.max_record_bytes):
            if isinstance(item, Skipped):
                yield item
            else:
                yield abstract_work(item, resources.count_tokens, "metadata", path)

    return run_job(context, items)


class MissingPdf(PaperchatError):
    """A queued PDF is not in the PDF store."""


def ingest_pdf(
    context: JobContext, path: str | None = None, sha256: str | None = None, name: str = ""
) -> dict[str, Any]:
    """The full text of one PDF: a file every worker can read at `path`, or the PDF kept in
    the shared PDF store under `sha256`, read under its own file `name` (which may carry its
    arXiv id) from a copy kept for the length of the job."""
    resources: Resources = context.additional_context[RESOURCES]
    store = resources.pdf_store
    with _as_is(path) if path is not None else _named_copy(store, sha256, name) as file:

        def items(resources: Resources, catalog: Catalog) -> Items:
            return pdf_items(
                [file],
                catalog,
                resources.count_tokens,
                timeout_s=resources.pdf_timeout_s,
                max_mb=resources.pdf_max_mb,
                store=store,
            )

        return run_job(context, items)


@contextmanager
def _as_is(path: str) -> Iterator[Path]:
    yield Path(path)


@contextmanager
def _named_copy(store: PdfStore | None, sha256: str | None, name: str) -> Iterator[Path]:
    """The stored PDF, copied for the time of the job to a file of its own name."""
    kept = store.find(sha256) if store is not None and sha256 else None
    if kept is None:
        where = store.root if store is not None else "no PDF store"
        raise MissingPdf(f"the PDF {sha256} is not in the PDF store ({where})")
    with tempfile.TemporaryDirectory(prefix="paperchat-job-") as folder:
        copy = Path(folder) / (Path(name).name or kept.name)
        shutil.copyfile(kept, copy)
        yield copy


def ingest_arxiv(context: JobContext, ids: list[str]) -> dict[str, Any]:
    """Papers by arXiv id: their records and PDFs, asked of the arXiv API."""

    def items(resources: Resources, catalog: Catalog) -> Iterator[UnitWork | Skipped]:
        with resources.arxiv() as client:
            harvested = list(harvest(client, ids=ids, pdf_dir=resources.pdf_dir))
        yield from arxiv_items(
            harvested,
            catalog,
            resources.count_tokens,
            resources.pdf_timeout_s,
            resources.pdf_max_mb,
            store=resources.pdf_store,
        )

    return run_job(context, items)


def harvest_categories(context: JobContext, timestamp: int) -> dict[str, Any]:
    """The scheduled harvest: the newest papers of the followed categories (asked of arXiv
    by the worker's `HARVEST_ROUND`), ingested as any job's items are."""
    newest: Callable[[], list[Paper]] | None = context.additional_context.get(HARVEST_ROUND)
    papers = newest() if newest is not None else []
    _log.info("harvest of %s: %d papers from arXiv", timestamp, len(papers))
    if not papers:
        return IngestReport().finish().as_json()

    def items(resources: Resources, catalog: Catalog) -> Items:
        harvested = (Harvested(paper, None, None) for paper in papers)
        return arxiv_items(harvested, catalog, resources.count_tokens, store=resources.pdf_store)

    return run_job(context, items)
