"""`paperchat ingest abstracts | pdfs | arxiv`: add papers to the index, then report."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from chat.cli.main import (
    CommandError,
    F,
    data_dir_option,
    emit,
    names_a_full_disk,
    settings_for,
    wiring_for,
)

if TYPE_CHECKING:
    from chat.wiring import Wiring
    from ingest.embedders.base import Vectors
    from ingest.embedders.cache import KeptVectors
    from ingest.report import IngestReport


@click.group()
def ingest() -> None:
    """Add papers to the index: metadata files, PDFs, or the arXiv API."""


def ingest_options(func: F) -> F:
    func = click.option("--json", "as_json", is_flag=True, help="The report as JSON on stdout.")(
        func
    )
    func = click.option(
        "--workers", type=click.IntRange(min=1), default=None, help="PDF parser processes."
    )(func)
    func = click.option(
        "--embeddings",
        "embeddings",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="An .npz of vectors keyed by the SHA-256 of the texts they embed (the layout of "
        "../shared/data/embeddings; default PAPERCHAT_EMBEDDINGS_CACHE): a chunk whose text "
        "it holds is not embedded again.",
    )(func)
    return data_dir_option(func)


def _run_ingest(
    index: Wiring,
    items: Callable[[], Iterable[Any]],
    total: Callable[[], int | None],
    description: str,
    as_json: bool,
    report: IngestReport,
    embeddings: Path | None = None,
) -> None:
    """Run the pipeline over `items()` (which loads the embedder), showing its progress (a bar
    at a terminal, else a line every few seconds, on stderr) and keeping the run's state in
    the data dir for `/api/health` from the start to its end, an exception's included;
    report, exit."""
    from ingest.pipeline import Pipeline
    from ingest.progress import BarProgress, LineProgress, Together, wants_bar
    from ingest.runs import RunRecord

    count = total()
    with RunRecord(index.settings.data_dir, description, report, count) as record:
        # A first run prepares the model (an ONNX export) for half a minute.
        click.echo(f"{description}: loading the embedding model", err=True)
        kept = _kept_vectors(index)
        embed = _embedding(index, embeddings, kept)
        work = items()
        shown = BarProgress(description, count) if wants_bar(as_json) else None
        with shown or LineProgress(description, count) as progress:
            pipeline = Pipeline(
                index.catalog,
                index.indexer,
                embed,
                Together(progress, record),
                pdf_timeout_s=index.settings.pdf_timeout_s,
            )
            pipeline.run(work, report)
        _tidy(index, kept, description)
    emit(report.as_json(), as_json, report.summary())
    index.close()
    sys.exit(report.exit_code)


def _kept_vectors(index: Wiring) -> KeptVectors:
    """The index's own vector cache, holding the vectors of its chunks before the run."""
    from ingest.embedders.cache import KEPT_FILE, KeptVectors

    embedder = index.embedder
    kept = KeptVectors.open(index.settings.data_dir / KEPT_FILE, embedder.name, embedder.dimension)
    if kept.fresh and index.store.count():
        click.echo("reading the index's vectors into its vector cache", err=True)
        kept.match_index(index.store)
    return kept


def _embedding(
    index: Wiring, cache_path: Path | None, kept: KeptVectors
) -> Callable[[Sequence[str]], Vectors]:
    """The embedder's `embed`, taking what the index's own cache `kept` holds from it, then
    what the vector cache (`--embeddings`, else `PAPERCHAT_EMBEDDINGS_CACHE`) holds."""
    from ingest.embedders.cache import VectorCache, embed_keeping

    embedder = index.embedder
    path = cache_path or index.settings.embeddings_cache
    cache = VectorCache.load(path) if path is not None else None
    return lambda texts: embed_keeping(embedder, kept, cache, texts)


def _tidy(index: Wiring, kept: KeptVectors, description: str) -> None:
    """Say what the index's own cache saved, when it saved anything (a first ingest says
    nothing); drop its entries of texts the index no longer holds once they may be many."""
    if kept.hits:
        click.echo(
            f"{description}: {kept.hits:,} vectors taken from the index's cache, "
            f"{kept.misses:,} not found there",
            err=True,
        )
    if kept.outgrown(index.store.count()):
        kept.match_index(index.store)
    kept.close()


def _check_cache(path: Path | None) -> None:
    """A vector cache named on the command line must be there before any work starts."""
    if path is not None and not path.is_file():
        raise CommandError(f"no such vector cache: {str(path)!r}")


@ingest.command("abstracts")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Papers to read at most.")
@ingest_options
@names_a_full_disk
def ingest_abstracts(
    file: Path,
    limit: int | None,
    data_dir: Path | None,
    workers: int | None,
    embeddings: Path | None,
    as_json: bool,
) -> None:
    """Import a JSON-lines metadata file (.jsonl or .jsonl.gz) in the arXiv snapshot layout."""
    if not file.is_file():
        raise CommandError(f"no such metadata file: {str(file)!r}")
    _check_cache(embeddings)
    from ingest.report import IngestReport
    from ingest.sources.metadata import count_records
    from ingest.sources.units import metadata_items

    index = wiring_for(data_dir)
    max_bytes = index.settings.max_record_bytes
    total = (lambda: limit) if limit else (lambda: count_records(file))

    def items() -> Iterable[Any]:
        return metadata_items(file, index.embedder.count_tokens, limit, max_bytes)

    _run_ingest(index, items, total, "abstracts", as_json, IngestReport(), embeddings)


@ingest.command("pdfs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@ingest_options
@names_a_full_disk
def ingest_pdfs(
    paths: tuple[Path, ...],
    data_dir: Path | None,
    workers: int | None,
    embeddings: Path | None,
    as_json: bool,
) -> None:
    """Import PDF files, and every PDF inside the folders named."""
    _check_cache(embeddings)
    from ingest.pdf.store import PdfStore
    from ingest.report import IngestReport
    from ingest.sources.units import find_pdfs, pdf_items

    index = wiring_for(data_dir)
    settings = index.settings

    def items() -> Iterable[Any]:
        return pdf_items(
            paths,
            index.open_catalog(),
            index.embedder.count_tokens,
            workers=workers or settings.workers,
            timeout_s=settings.pdf_timeout_s,
            max_mb=settings.pdf_max_mb,
            store=PdfStore(settings.pdf_store_path),
        )

    def total() -> int:
        """The PDFs found, and the paths named that are none (each one skipped item)."""
        found, skipped = find_pdfs(paths)
        return len(found) + len(skipped)

    _run_ingest(index, items, total, "pdfs", as_json, IngestReport(), embeddings)


@ingest.command("arxiv")
@click.option("--id", "ids", multiple=True, help="An arXiv id; repeat for more.")
@click.option("--query", default=None, help="An arXiv API search query, e.g. 'ti:retrieval'.")
@click.option("--max", "max_results", type=click.IntRange(min=1), default=20, show_default=True)
@ingest_options
@names_a_full_disk
def ingest_arxiv(
    ids: tuple[str, ...],
    query: str | None,
    max_results: int,
    data_dir: Path | None,
    workers: int | None,
    embeddings: Path | None,
    as_json: bool,
) -> None:
    """Harvest metadata and PDFs from the arXiv API, politely (one request every 3 s)."""
    if bool(ids) == bool(query):
        raise click.UsageError("give either --id (one or more) or --query")
    _check_cache(embeddings)
    from ingest.pdf.store import PdfStore
    from ingest.report import IngestReport
    from ingest.sources.arxiv_api import ArxivClient, harvest
    from ingest.sources.units import arxiv_items

    settings = settings_for(data_dir)
    index = wiring_for(data_dir)
    client = ArxivClient(
        api_url=settings.arxiv_api_url,
        pdf_base_url=settings.arxiv_pdf_url,
        interval=settings.arxiv_interval_s,
    )
    with client:
        harvested = harvest(
            client,
            ids=list(ids) if ids else None,
            query=query,
            max_results=max_results,
            pdf_dir=settings.data_dir / "pdfs",
        )

        def items() -> Iterable[Any]:
            return arxiv_items(
                harvested,
                index.open_catalog(),
                index.embedder.count_tokens,
                settings.pdf_timeout_s,
                settings.pdf_max_mb,
                store=PdfStore(settings.pdf_store_path),
            )

        _run_ingest(index, items, lambda: None, "arxiv", as_json, IngestReport(), embeddings)
