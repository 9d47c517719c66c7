"""`paperchat jobs enqueue abstracts | pdfs | arxiv` and `paperchat jobs status`: ingest as
jobs in the queue that `paperchat worker` processes take, and how far they have got."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chat.cli.main import CommandError, data_dir_option, emit, json_option, settings_for
from chat.cli.worker import queue_url

if TYPE_CHECKING:
    import procrastinate


@click.group()
def jobs() -> None:
    """The ingest queue: put work on it, see how it goes."""


@jobs.group()
def enqueue() -> None:
    """Queue ingest work for the workers instead of running it here."""


@contextmanager
def _queue(data_dir: Path | None) -> Iterator[procrastinate.App]:
    from ingest.jobs.queue import open_queue, prepare

    url = queue_url(settings_for(data_dir))
    prepare(url)
    app = open_queue(url)
    with app.open():
        yield app


def _queued(count: int, what: str, as_json: bool) -> None:
    emit({"jobs": count}, as_json, f"queued {count} jobs ({what})")


@enqueue.command("abstracts")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=None,
    help="Lines of the file per job (default 200).",
)
@json_option
@data_dir_option
def enqueue_abstracts(file: Path, batch: int | None, as_json: bool, data_dir: Path | None) -> None:
    """One job per batch of lines of a JSON-lines metadata file (.jsonl or .jsonl.gz)."""
    from ingest.jobs.batches import BATCH_LINES
    from ingest.jobs.enqueue import enqueue_metadata

    if not file.is_file():
        raise CommandError(f"no such metadata file: {str(file)!r}")
    with _queue(data_dir) as app:
        ids = enqueue_metadata(app, file, batch or BATCH_LINES)
    _queued(len(ids), f"{file.name}, {batch or BATCH_LINES} lines each", as_json)


@enqueue.command("pdfs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--by-path",
    is_flag=True,
    help="Name each PDF by its path (every worker reads the same disk) instead of keeping it "
    "in the PDF store.",
)
@json_option
@data_dir_option
def enqueue_pdfs(
    paths: tuple[Path, ...], by_path: bool, as_json: bool, data_dir: Path | None
) -> None:
    """One job per PDF file named or found in the folders named, each kept in the PDF store
    (PAPERCHAT_PDF_STORE, a folder every worker reads) for the workers to read."""
    from ingest.jobs.enqueue import enqueue_pdfs as enqueue
    from ingest.pdf.store import PdfStore

    store = None if by_path else PdfStore(settings_for(data_dir).pdf_store_path)
    with _queue(data_dir) as app:
        ids, skipped = enqueue(app, paths, store)
    for item in skipped:
        click.echo(f"skipped {item.source}: {item.reason}", err=True)
    _queued(len(ids), "one PDF each", as_json)


@enqueue.command("arxiv")
@click.option("--id", "ids", multiple=True, required=True, help="An arXiv id; repeat for more.")
@json_option
@data_dir_option
def enqueue_arxiv(ids: tuple[str, ...], as_json: bool, data_dir: Path | None) -> None:
    """Papers by arXiv id, a few per job: the workers ask the arXiv API for them."""
    from ingest.jobs.enqueue import ARXIV_IDS_PER_JOB
    from ingest.jobs.enqueue import enqueue_arxiv as enqueue

    with _queue(data_dir) as app:
        queued = enqueue(app, list(dict.fromkeys(ids)))
    _queued(len(queued), f"up to {ARXIV_IDS_PER_JOB} ids each", as_json)


@jobs.command("status")
@json_option
@data_dir_option
def status(as_json: bool, data_dir: Path | None) -> None:
    """Jobs queued, running, failed and done."""
    from ingest.jobs.queue import counts

    with _queue(data_dir) as app:
        found = counts(app)
    labels = {"todo": "queued", "doing": "running", "succeeded": "done", "failed": "failed"}
    text = ", ".join(f"{label} {found[state]}" for state, label in labels.items())
    emit(found, as_json, text)


@jobs.command("retry")
@json_option
@data_dir_option
def retry(as_json: bool, data_dir: Path | None) -> None:
    """Queue the failed jobs again (after what made them fail is put right)."""
    from ingest.jobs.queue import retry_failed

    with _queue(data_dir) as app:
        again = retry_failed(app)
    emit({"jobs": len(again)}, as_json, f"queued {len(again)} failed jobs again")
