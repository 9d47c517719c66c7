"""`paperchat ask`: one question, the answer streamed to a terminal or as one JSON object."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from chat.cli.main import CommandError, data_dir_option, wiring_for
from chat.library.authors import author_filter
from chat.rag.answer.events import Delta, Error, Gathered, Sources, gather
from ingest.index.filters import Filters
from ingest.index.records import normalise_paper_id

if TYPE_CHECKING:
    from chat.rag.answer.answering import Answerer
    from ingest.index.catalog import Catalog


@click.command("ask")
@click.argument("question")
@click.option("--paper", "papers", multiple=True, help="Answer from this paper only; repeatable.")
@click.option("--author", default="", help="Answer from this author's papers only.")
@data_dir_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a stream.")
def ask(
    question: str, papers: tuple[str, ...], author: str, data_dir: Path | None, as_json: bool
) -> None:
    """Stream a cited answer from the indexed papers, then list its sources."""
    index = wiring_for(data_dir)
    try:
        filters = question_filters(index.catalog, papers, author)
        code = asyncio.run(ask_once(index.answerer, question, filters, as_json))
    finally:
        index.close()
    sys.exit(code)


def paper_ids(values: Sequence[str]) -> tuple[str, ...]:
    """`--paper` values as index ids: arXiv ids without version, or document ids."""
    return tuple(normalise_paper_id(value) for value in values)


def question_filters(catalog: Catalog, papers: Sequence[str], author: str) -> Filters:
    """The filters of `--paper` and `--author`; a paper or author the index does not hold is
    a usage error (exit 2), not a question answered from nothing."""
    ids = paper_ids(papers)
    missing = [given for given, i in zip(papers, ids, strict=True) if catalog.get_paper(i) is None]
    if missing:
        raise CommandError(f"paper {', '.join(map(repr, missing))} not in the index")
    return author_filter(catalog, Filters(paper_ids=ids, author=" ".join(author.split())))


def _print_sources(event: Sources) -> None:
    if not event.sources:
        return
    click.echo("\n\nSources:")
    for source in event.sources:
        where = f", {source.section}" if source.section else ""
        page = f", p. {source.page}" if source.page else ""
        click.echo(f"  [{source.n}] {source.citation} {source.title}{where}{page}")


@dataclass
class _Printed(Gathered):
    """The answer gathered, its text and any error printed as they come (not with --json)."""

    quiet: bool = False

    def on_delta(self, event: Delta) -> None:
        super().on_delta(event)
        if not self.quiet:
            click.echo(event.text, nl=False)

    def on_error(self, event: Error) -> None:
        super().on_error(event)
        if not self.quiet:
            detail = f" ({event.detail})" if event.detail else ""
            click.echo(f"\npaperchat: error: {event.message}{detail}", err=True)


async def ask_once(answerer: Answerer, text: str, filters: Filters, as_json: bool) -> int:
    """Run one question; returns the exit code (2 when the answer ended in an error)."""
    from chat.rag.answer.answering import Question

    try:
        answer = await gather(
            answerer.answer(Question(text, filters=filters)), _Printed(quiet=as_json)
        )
    finally:
        await answerer.aclose()
    if as_json:
        click.echo(json.dumps(_as_json(answer), ensure_ascii=False))
    elif answer.found is not None:
        _print_sources(answer.found)
        click.echo()
    return 2 if answer.error is not None else 0


def _as_json(answer: Gathered) -> dict[str, Any]:
    payload: dict[str, Any] = {"answer": answer.text}
    if answer.found is not None:
        payload.update(answer.found.data())
    if answer.done is not None:
        payload.update(answer.done.data())
    if answer.error is not None:
        payload["error"] = answer.error.data()
    return payload
