"""`paperchat index stats | check | delete | rebuild-lexical | rebuild-vectors | prune-changes |
copy-catalog | reembed`: look at or change the index."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chat.cli.main import (
    CommandError,
    data_dir_option,
    emit,
    json_option,
    names_a_full_disk,
    wiring_for,
)
from ingest.index.tables.chunks import KINDS, UNIT_KINDS, UNITS

if TYPE_CHECKING:
    from chat.wiring import Wiring
    from ingest.index.vectors.check import Report


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
    from ingest.index.lexical.bm25 import rebuild_all

    idx = wiring_for(data_dir)
    # A lexical index another process keeps writing for minutes is refused with its reason.
    if idx.settings.shared_catalog:
        written = idx.replica.rebuild()
    else:
        written = rebuild_all(idx.lexical, idx.catalog)
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
    result = reembed(idx._chroma, embedder, _progress("reembed"))
    if result.unchanged:
        click.echo(f"the index is embedded by {result.embedder} already: {result.chunks} chunks")
    else:
        click.echo(
            f"embedded {result.embedded} chunks again ({result.chunks} in all) with "
            f"{result.embedder} in {result.seconds:.0f}s"
        )
    idx.close()


@index.command("check")
@data_dir_option
@json_option
def index_check(data_dir: Path | None, as_json: bool) -> None:
    """Check the vector store against the catalog: counts, a random sample of chunks and
    searches by their vectors; exit 1 when something is wrong, with what to do."""
    idx = wiring_for(data_dir)
    try:
        report = _checked(idx)
    finally:
        idx.close()
    payload = report.as_json()
    vectors = "unreadable" if report.vectors is None else f"{report.vectors:,}"
    lines = [
        f"vectors: {vectors} for the catalog's {report.chunks:,} chunks; {report.sampled} sampled"
    ]
    lines += [f"{f.severity}: {f.text}" for f in report.findings]
    if report.findings:
        lines.append(REBUILD_ADVICE)
    else:
        lines.append("the vector store is whole")
    emit(payload, as_json, "\n".join(lines))
    sys.exit(1 if report.findings else 0)


REBUILD_ADVICE = (
    "`paperchat index rebuild-vectors` makes the vectors again from the catalog (accounts, "
    "keys and conversations are kept: they are not in the vector store)"
)


def _checked(idx: Wiring) -> Report:
    """Check through the configured server or the one a `paperchat serve` runs on the
    directory; else claim the embedded directory and look at it from a child process."""
    from ingest.index.vectors.check import check
    from ingest.index.vectors.owner import VectorStoreBusy, claim, published_url
    from ingest.index.vectors.store import open_chroma

    settings = idx.settings
    if settings.chroma_url:
        return check(open_chroma(settings.chroma_path, settings.chroma_url), idx.catalog)
    path = settings.chroma_path
    try:
        mine = claim(path)
    except VectorStoreBusy:
        url = published_url(path)
        return check(open_chroma(path, url), idx.catalog, path)
    try:
        return check(None, idx.catalog, path)
    finally:
        mine.release()


@index.command("rebuild-vectors")
@click.option(
    "--cache",
    "cache_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="An .npz of vectors keyed by their texts' SHA-256 (default PAPERCHAT_EMBEDDINGS_CACHE): "
    "texts it holds are not embedded.",
)
@data_dir_option
@names_a_full_disk
def index_rebuild_vectors(cache_path: Path | None, data_dir: Path | None) -> None:
    """Make the vector store again from the catalog's chunks. An embedded store is moved
    aside (kept, not deleted) and a new one written; an interrupted run goes on where it
    stopped. Nothing else in the data dir is touched."""
    from ingest.embedders.cache import VectorCache
    from ingest.embedders.rebuilding import drop_collection, finish, move_aside, rebuild
    from ingest.index.vectors.owner import Claim, VectorStoreBusy, claim
    from ingest.index.vectors.store import open_chroma

    idx = wiring_for(data_dir)
    settings = idx.settings
    cache_path = cache_path or settings.embeddings_cache
    cache = VectorCache.load(cache_path) if cache_path else None
    embedder = idx.embedder
    path = settings.chroma_path
    moved = None
    mine: Claim | None = None
    if settings.chroma_url:
        client = open_chroma(path, settings.chroma_url)
        drop_collection(client)
    else:
        try:
            mine = claim(path, "paperchat index rebuild-vectors")
        except VectorStoreBusy as e:
            raise CommandError(f"{e}; stop it before rebuilding") from e
        moved = move_aside(path)
        client = open_chroma(path)
    result = rebuild(client, idx.catalog, embedder, cache, _progress("rebuild-vectors"))
    if mine is not None:
        finish(path)
        mine.release()
    idx.close()
    kept = f", {result.kept:,} kept from the interrupted run" if result.kept else ""
    click.echo(
        f"vectors rebuilt: {result.chunks:,} written ({result.from_cache:,} from the cache, "
        f"{result.embedded:,} embedded){kept} in {result.seconds:.0f}s"
    )
    if moved is not None:
        click.echo(f"the old store is kept at {str(moved)!r}: delete it once satisfied")


def _progress(command: str) -> Callable[[int, int], None]:
    """A line on stderr every 5 s at most, and at the end: `command: done/total chunks`."""
    shown = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - shown[0] >= 5 or done == total:
            shown[0] = now
            click.echo(f"{command}: {done:,}/{total:,} chunks", err=True)

    return progress
