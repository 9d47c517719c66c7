"""A comparison table: the papers asked for, checked, and their cells filled one by one.

Papers are named by id as people write them (`arXiv:2004.04906v3`), each once;
ids the index does not hold are refused together (`PapersNotFound`). Cells
fill paper by paper, aspect by aspect: quoted from the paper's passages
(`cells.quoted_cell`) without a model, or answered by the chat model
(`model.CellModel`), a few cells at a time, as each comes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from chat.rag.answer.answering import Answerer
from chat.rag.answer.generators import ModelGenerator
from chat.rag.compare.aspects import MAX_PAPERS, Aspect
from chat.rag.compare.cells import Cell, quoted_cell
from chat.rag.compare.model import CellModel, load_prompt
from chat.rag.compare.passages import paper_passages, scoped
from chat.rag.retrieval.retriever import Retriever
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.records import normalise_paper_id

# Cells the model answers at once.
MODEL_CELLS_AT_ONCE = 4


class PapersNotFound(PaperchatError, LookupError):
    """Papers a comparison names that the index does not hold."""

    def __init__(self, paper_ids: Sequence[str]) -> None:
        super().__init__(f"no such paper in the index: {', '.join(paper_ids)}")
        self.paper_ids = tuple(paper_ids)


class InvalidPapers(PaperchatError, ValueError):
    """A comparison of no papers, or of more than `MAX_PAPERS`."""


@dataclass(frozen=True)
class Paper:
    id: str
    title: str


def papers_of(catalog: Catalog, paper_ids: Sequence[str]) -> list[Paper]:
    """The papers named, each once in the order first named; PapersNotFound naming every id
    the index lacks, InvalidPapers for none or more than `MAX_PAPERS`."""
    ids = list(dict.fromkeys(normalise_paper_id(p) for p in paper_ids))
    if not ids:
        raise InvalidPapers("name at least one paper to compare")
    if len(ids) > MAX_PAPERS:
        raise InvalidPapers(f"{len(ids)} papers; at most {MAX_PAPERS} are compared")
    found = {i: catalog.get_paper(i) for i in ids}
    missing = [i for i, paper in found.items() if paper is None]
    if missing:
        raise PapersNotFound(missing)
    return [Paper(i, paper.title) for i, paper in found.items() if paper is not None]


@dataclass
class Filled:
    """The cells so far, and the citations the model made up (removed from its cells)."""

    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)

    def rows(self, papers: Sequence[Paper], aspects: Sequence[Aspect]) -> list[dict[str, Any]]:
        """The table as the API gives it: a row per paper, a cell per aspect."""
        return [
            {
                "paper_id": paper.id,
                "title": paper.title,
                "cells": {
                    a.name: self.cells.get(
                        (paper.id, a.name), Cell.not_found(paper.id, a.name)
                    ).data()
                    for a in aspects
                },
            }
            for paper in papers
        ]


class Comparer:
    """Fills comparison tables from one index, with the chat model when there is one."""

    def __init__(self, retriever: Retriever, model: CellModel | None = None) -> None:
        self.retriever = scoped(retriever)
        self.model = model

    @classmethod
    def of(cls, answerer: Answerer) -> Comparer:
        """The comparer of the service's answerer: its retriever, and its model if any."""
        generator = answerer.generator
        if isinstance(generator, ModelGenerator):
            model = CellModel(generator.model, generator.prompts, load_prompt())
            return cls(answerer.retriever, model)
        return cls(answerer.retriever)

    @property
    def mode(self) -> str:
        return "llm" if self.model is not None else "extractive"

    def quoted(self, paper: Paper, aspect: Aspect) -> Cell:
        """One cell quoted from the paper's passages (blocking: run it in a thread)."""
        sources = paper_passages(self.retriever, paper.id, aspect.query)
        return quoted_cell(paper.id, aspect, sources)

    async def fill(
        self, papers: Sequence[Paper], aspects: Sequence[Aspect], filled: Filled
    ) -> AsyncIterator[Cell]:
        """Each cell as it is filled (kept in `filled` too); UpstreamError when the model's
        server fails."""
        if self.model is None:
            for paper in papers:
                for aspect in aspects:
                    cell = await asyncio.to_thread(self.quoted, paper, aspect)
                    filled.cells[(paper.id, aspect.name)] = cell
                    yield cell
            return
        async for cell in self._answered(papers, aspects, filled):
            yield cell

    async def _answered(
        self, papers: Sequence[Paper], aspects: Sequence[Aspect], filled: Filled
    ) -> AsyncIterator[Cell]:
        model = self.model
        assert model is not None, "only with a model"
        gate = asyncio.Semaphore(MODEL_CELLS_AT_ONCE)

        async def one(paper: Paper, aspect: Aspect) -> Cell:
            async with gate:
                sources = await asyncio.to_thread(
                    paper_passages, self.retriever, paper.id, aspect.query
                )
                answered = await model.cell(paper.id, aspect, sources)
            filled.dropped += [d for d in answered.dropped if d not in filled.dropped]
            return answered.cell

        tasks = [asyncio.ensure_future(one(p, a)) for p in papers for a in aspects]
        try:
            for done in asyncio.as_completed(tasks):
                cell = await done
                filled.cells[(cell.paper_id, cell.aspect)] = cell
                yield cell
        finally:
            for task in tasks:
                task.cancel()
            with suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, return_exceptions=True)
