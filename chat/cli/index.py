"""`paperchat index stats | delete | rebuild-lexical | prune-changes | copy-catalog`: look at
or change the index."""

from __future__ import annotations

from pathlib import Path

import click

from chat.cli.main import (
    CommandError,
    data_dir_option,
    emit,
    json_option,
    names_a_full_disk,
    wiring_for,
)
from ingest.index.catalog import KINDS, UNIT_KINDS, UNITS


@click.group()
def index() -> None:
    """Look at or change the index."""


@index.command("stats")
@data_dir_option
@json_option
def index_stats(data_dir: Path | None, as_json: bool) -> None:
    """Papers and chunks in the index, by kind."""
    idx = wiring_for(data_dir)
    stats = idx.catalog.stats()
    payload = {
        "papers": stats["papers"],
        "chunks": stats["chunks"],
        # The contract's two kinds; a PDF's captions, tables and footnotes count as full text.
        "chunks_by_kind": {unit: sum(stats[kind] for kind in UNIT_KINDS[unit]) for unit in UNITS},
        "chunks_by_part": {kind: stats[kind] for kind in KINDS},
        "papers_with_fulltext": stats["papers_with_fulltext"],
        "vectors": idx.unchecked_store.count(),
        "lexical": idx.lexical.count(),
    }
    if idx.settings.shared_catalog:
        payload["lexical_lag"] = idx.replica.state().lag
    text = (
        f"papers: {payload['papers']} ({payload['papers_with_fulltext']} with full text)\n"
        f"chunks: {payload['chunks']} ({', '.join(f'{k} {stats[k]}' for k in KINDS)}); "
        f"in Chroma: {payload['vectors']}, "
        f"in the lexical index: {payload['lexical']}"
    )
    emit(payload, as_json, text)
    idx.close()


@index.command("delete")
@click.argument("paper_id")
@data_dir_option
@names_a_full_disk
def index_delete(paper_id: str, data_dir: Path | None) -> None:
    """Remove a paper and all its chunks from both indexes."""
    from ingest.index.records import normalise_paper_id
    from ingest.index.writer import Indexer

    idx = wiring_for(data_dir)
    paper_id = normalise_paper_id(paper_id)
    if idx.catalog.get_paper(paper_id) is None:
        raise CommandError(f"no paper {paper_id!r} in the index")
    # A shared catalog's lexical indexes follow its change log on each serving node.
    lexical = None if idx.settings.shared_catalog else idx.lexical
    removed = Indexer(idx.catalog, idx.unchecked_store, lexical).delete_paper(paper_id)
    click.echo(f"deleted {paper_id}: {removed} chunks")
    idx.close()


@index.command("rebuild-lexical")
@data_dir_option
@names_a_full_disk
def index_rebuild_lexical(data_dir: Path | None) -> None:
    """Rebuild this node's lexical index from the catalog (a lost or damaged one; with a
    shared catalog, it then follows the catalog's changes from where the rebuild began)."""
    from ingest.index.lexical import LexicalIndexError, rebuild_all

    idx = wiring_for(data_dir)
    try:
        if idx.settings.shared_catalog:
            written = idx.replica.rebuild()
        else:
            written = rebuild_all(idx.lexical, idx.catalog)
    except LexicalIndexError as e:
        raise CommandError(
            f"{e}: a `paperchat serve` or ingest on this data dir holds the lexical index;"
            " stop it and run this again"
        ) from e
    click.echo(f"lexical index rebuilt: {written} chunks")
    idx.close()


@index.command("prune-changes")
@click.option(
    "--keep",
    type=click.IntRange(min=1),
    default=100_000,
    show_default=True,
    help="How many of the latest changes the log keeps.",
)
@data_dir_option
def index_prune_changes(keep: int, data_dir: Path | None) -> None:
    """Delete all but the latest changes from the catalog's change log, which the nodes'
    lexical indexes follow. A node that had not read as far as what was deleted rebuilds
    its lexical index from the catalog (once, when it next catches up)."""
    idx = wiring_for(data_dir)
    first_before = idx.catalog.first_change()
    pruned = idx.catalog.prune_changes(keep)
    first, last = idx.catalog.first_change(), idx.catalog.last_change()
    kept = f"changes {first} to {last}" if last else "no changes"
    click.echo(f"pruned {pruned} changes (from {first_before}); the log keeps {kept}")
    idx.close()


@index.command("copy-catalog")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A catalog file (catalog.sqlite) to copy into the configured, empty catalog.",
)
@data_dir_option
def index_copy_catalog(source: Path, data_dir: Path | None) -> None:
    """Copy a data dir's catalog into the shared one (PAPERCHAT_DATABASE_URL naming
    PostgreSQL), for a library that moves from one machine to several. Chroma's vectors
    move with `chroma` itself; each node's lexical index follows the copy."""
    from ingest.index.catalog import Catalog
    from ingest.index.copying import copy_catalog

    idx = wiring_for(data_dir)
    if not idx.settings.shared_catalog:
        raise CommandError("the catalog is not shared: set PAPERCHAT_DATABASE_URL to PostgreSQL")
    origin = Catalog(source)
    try:
        copied = copy_catalog(origin, idx.catalog)
    finally:
        origin.close()
    click.echo(f"copied {copied['papers']} papers and {copied['chunks']} chunks")
    idx.close()


@index.command("reembed")
@data_dir_option
@names_a_full_disk
def index_reembed(data_dir: Path | None) -> None:
    """Embed every chunk again with the configured embedder (PAPERCHAT_EMBEDDER_MODEL, a
    model `paperchat embedder train` wrote, or the packaged one). The index keeps answering
    with its old vectors until the new ones are all written; an interrupted run resumes."""
    from ingest.embedders.reembedding import reembed

    idx = wiring_for(data_dir)
    embedder = idx.embedder
    started = [0.0]

    def progress(done: int, total: int) -> None:
        import time

        now = time.perf_counter()
        if now - started[0] >= 5 or done == total:
            started[0] = now
            click.echo(f"reembed: {done}/{total} chunks", err=True)

    result = reembed(idx._chroma, embedder, progress)
    if result.unchanged:
        click.echo(f"the index is embedded by {result.embedder} already: {result.chunks} chunks")
    else:
        click.echo(
            f"embedded {result.embedded} chunks again ({result.chunks} in all) with "
            f"{result.embedder} in {result.seconds:.0f}s"
        )
    idx.close()
