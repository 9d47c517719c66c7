"""`paperchat index stats | delete`: look at or change the index."""

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
    removed = Indexer(idx.catalog, idx.unchecked_store, idx.lexical).delete_paper(paper_id)
    click.echo(f"deleted {paper_id}: {removed} chunks")
    idx.close()
