"""The `paperchat` command line.

Exit codes: 0 success; 1 done, but some items were skipped (each listed with
its reason); 2 usage or configuration error, with a one-line message.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from chat.cli.admin import register as register_admin
from chat.settings import Settings, get_settings

if TYPE_CHECKING:
    from chat.wiring import Wiring
    from ingest.report import IngestReport

# The heavy modules (Chroma, onnxruntime, the openai client) are imported inside
# the commands that need them: PDF parser workers start by importing this module,
# and each would otherwise pay for them.

F = TypeVar("F", bound=Callable[..., Any])


class ConfigError(click.ClickException):
    """A configuration or environment problem: one line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"paperchat: error: {self.format_message()}", err=True)


class PaperchatGroup(click.Group):
    """Turns any error escaping a command into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("paperchat: interrupted", err=True)
            sys.exit(130)
        except Exception as e:
            raise ConfigError(str(e) or type(e).__name__) from e


def _index(data_dir: Path | None) -> Wiring:
    from chat.wiring import Wiring

    return Wiring(_settings(data_dir))


def _settings(data_dir: Path | None) -> Settings:
    settings = get_settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


def _emit(payload: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        click.echo(json.dumps(payload, ensure_ascii=False))
    else:
        click.echo(text)


@click.group(cls=PaperchatGroup)
@click.version_option(package_name="paperchat")
def main() -> None:
    """Chat with arXiv papers: ingest them, search them, ask them."""


@main.group(cls=PaperchatGroup)
def ingest() -> None:
    """Add papers to the index: metadata files, PDFs, or the arXiv API."""


def ingest_options(func: F) -> F:
    func = click.option("--json", "as_json", is_flag=True, help="The report as JSON on stdout.")(
        func
    )
    func = click.option(
        "--workers", type=click.IntRange(min=1), default=None, help="PDF parser processes."
    )(func)
    return click.option(
        "--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None
    )(func)


def _run_ingest(
    index: Wiring,
    items: Iterable[Any],
    total: Callable[[], int | None],
    description: str,
    as_json: bool,
    report: IngestReport,
) -> None:
    """Run the pipeline with a bar (`total` is only counted when a bar is shown), report, exit."""
    from ingest.pipeline import Pipeline
    from ingest.progress import BarProgress, NoProgress, wants_bar

    embedder = index.embedder
    bar = BarProgress(description, total()) if wants_bar(as_json) else None
    with bar if bar is not None else nullcontext():
        pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, bar or NoProgress())
        pipeline.run(items, report)
    _emit(report.as_json(), as_json, report.summary())
    index.close()
    sys.exit(report.exit_code)


@ingest.command("abstracts")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Papers to read at most.")
@ingest_options
def ingest_abstracts(
    file: Path, limit: int | None, data_dir: Path | None, workers: int | None, as_json: bool
) -> None:
    """Import a JSON-lines metadata file (.jsonl or .jsonl.gz) in the arXiv snapshot layout."""
    if not file.is_file():
        raise ConfigError(f"no such metadata file: {str(file)!r}")
    from ingest.report import IngestReport
    from ingest.sources.metadata import count_records
    from ingest.sources.units import metadata_items

    index = _index(data_dir)
    items = metadata_items(file, index.embedder.count_tokens, limit)
    total = (lambda: limit) if limit else (lambda: count_records(file))
    _run_ingest(index, items, total, "abstracts", as_json, IngestReport())


@ingest.command("pdfs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@ingest_options
def ingest_pdfs(
    paths: tuple[Path, ...], data_dir: Path | None, workers: int | None, as_json: bool
) -> None:
    """Import PDF files, and every PDF inside the folders named."""
    from ingest.report import IngestReport
    from ingest.sources.units import find_pdfs, pdf_items

    settings = _settings(data_dir)
    index = _index(data_dir)
    items = pdf_items(
        paths,
        index.open_catalog(),
        index.embedder.count_tokens,
        workers=workers or settings.workers,
        timeout_s=settings.pdf_timeout_s,
    )

    def total() -> int:
        return len(find_pdfs(paths)[0])

    _run_ingest(index, items, total, "pdfs", as_json, IngestReport())


@ingest.command("arxiv")
@click.option("--id", "ids", multiple=True, help="An arXiv id; repeat for more.")
@click.option("--query", default=None, help="An arXiv API search query, e.g. 'ti:retrieval'.")
@click.option("--max", "max_results", type=click.IntRange(min=1), default=20, show_default=True)
@ingest_options
def ingest_arxiv(
    ids: tuple[str, ...],
    query: str | None,
    max_results: int,
    data_dir: Path | None,
    workers: int | None,
    as_json: bool,
) -> None:
    """Harvest metadata and PDFs from the arXiv API, politely (one request every 3 s)."""
    if bool(ids) == bool(query):
        raise click.UsageError("give either --id (one or more) or --query")
    from ingest.report import IngestReport
    from ingest.sources.arxiv_api import ArxivClient, harvest
    from ingest.sources.units import arxiv_items

    settings = _settings(data_dir)
    index = _index(data_dir)
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
        items = arxiv_items(
            harvested, index.open_catalog(), index.embedder.count_tokens, settings.pdf_timeout_s
        )
        _run_ingest(index, items, lambda: None, "arxiv", as_json, IngestReport())


@main.group(cls=PaperchatGroup)
def index() -> None:
    """Look at or change the index."""


@index.command("stats")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
def index_stats(data_dir: Path | None, as_json: bool) -> None:
    """Papers and chunks in the index, by kind."""
    idx = _index(data_dir)
    stats = idx.catalog.stats()
    payload = {
        "papers": stats["papers"],
        "chunks": stats["chunks"],
        "chunks_by_kind": {"abstract": stats["abstract"], "fulltext": stats["fulltext"]},
        "papers_with_fulltext": stats["papers_with_fulltext"],
        "vectors": idx.unchecked_store.count(),
        "lexical": idx.lexical.count(),
    }
    text = (
        f"papers: {payload['papers']} ({payload['papers_with_fulltext']} with full text)\n"
        f"chunks: {payload['chunks']} (abstract {stats['abstract']}, "
        f"fulltext {stats['fulltext']}); in Chroma: {payload['vectors']}, "
        f"in the lexical index: {payload['lexical']}"
    )
    _emit(payload, as_json, text)
    idx.close()


@index.command("delete")
@click.argument("paper_id")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
def index_delete(paper_id: str, data_dir: Path | None) -> None:
    """Remove a paper and all its chunks from both indexes."""
    from ingest.index.records import normalise_paper_id
    from ingest.index.writer import Indexer

    idx = _index(data_dir)
    paper_id = normalise_paper_id(paper_id)
    if idx.catalog.get_paper(paper_id) is None:
        raise ConfigError(f"no paper {paper_id!r} in the index")
    removed = Indexer(idx.catalog, idx.unchecked_store, idx.lexical).delete_paper(paper_id)
    click.echo(f"deleted {paper_id}: {removed} chunks")
    idx.close()


@main.command("ask")
@click.argument("question")
@click.option("--paper", "papers", multiple=True, help="Answer from this paper only; repeatable.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a stream.")
def ask(question: str, papers: tuple[str, ...], data_dir: Path | None, as_json: bool) -> None:
    """Stream a cited answer from the indexed papers, then list its sources."""
    from chat.cli.ask import ask_once

    index = _index(data_dir)
    code = asyncio.run(ask_once(index.answerer, question, papers, as_json))
    index.close()
    sys.exit(code)


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Server processes.")  # fmt: skip
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
def serve(host: str, port: int, workers: int, data_dir: Path | None) -> None:
    """Serve the HTTP API with uvicorn until interrupted."""
    import os

    import uvicorn

    from chat.service.logs import configure_logging

    configure_logging()
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": None,
        "timeout_graceful_shutdown": 10,
    }
    if workers == 1:
        from chat.service.app import create_app

        uvicorn.run(create_app(_settings(data_dir)), **options)
        return
    if data_dir is not None:
        # Each worker process reads its settings from the environment.
        os.environ["PAPERCHAT_DATA_DIR"] = str(data_dir)
    uvicorn.run("chat.service.app:create_app_from_env", factory=True, workers=workers, **options)


@main.group(cls=PaperchatGroup, name="eval")
def evaluate_group() -> None:
    """Measure retrieval and answers on questions with gold answers."""


@evaluate_group.command("retrieval")
@click.argument("questions", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--k", type=click.IntRange(min=1, max=50), default=10, show_default=True,
              help="Chunks given to the answerer (for the gold-page measure).")  # fmt: skip
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
def eval_retrieval(questions: Path, k: int, data_dir: Path | None, as_json: bool) -> None:
    """Recall@1/5/10 and MRR of the gold paper: dense, BM25 and hybrid, by question type."""
    from chat.rag.evaluation import evaluate, load_questions, table

    index = _index(data_dir)
    retriever = index.retriever
    retriever.config = dataclasses.replace(retriever.config, k=k)
    report = evaluate(retriever, load_questions(questions))
    _emit(report, as_json, table(report))
    index.close()


register_admin(main, _settings)


if __name__ == "__main__":
    main()
