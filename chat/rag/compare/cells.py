"""One cell of a comparison, and the cell quoted from a paper's passages without a model.

A table whose first column is headed by what the aspect asks for ("Dataset")
gives its row labels. Otherwise the cell is a sentence: of those the extractive
answerer (`compose` in `chat/rag/extractive/answerer.py`) chooses for the
aspect's question, and, for an aspect that wants a kind of answer, of every
quotable sentence of the passages (every piece of text for "code
availability", footnotes too), those that fit the aspect (`Aspect.fits`:
dataset names, a number, words saying the code is out), the first that weighs
most (`Aspect.weight`: the most dataset names, say). Task, method and main
result are looked for in the abstract first. A cell cites the chunk it is quoted from; when
nothing fits it says `NOT_FOUND` and cites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chat.rag.compare.aspects import NOT_FOUND, Aspect
from chat.rag.compare.passages import is_abstract
from chat.rag.extractive.answerer import compose
from chat.rag.extractive.sentences import source_sentences, split_sentences
from chat.rag.sources import Source

# Sentences the answerer chooses among for one cell.
_CHOSEN = 4
# The longest piece of text quoted whole in a cell; a longer one is cut at a word.
MAX_CELL_CHARS = 400
_LABEL = re.compile(r"[^\W\d_]{2,}")  # a row label: a word, not a bare number


@dataclass(frozen=True)
class Cell:
    """What one paper says on one aspect, and the chunk id or citation it comes from
    (None when the paper does not say)."""

    paper_id: str
    aspect: str
    text: str
    citation: str | None

    @classmethod
    def not_found(cls, paper_id: str, aspect: str) -> Cell:
        return cls(paper_id, aspect, NOT_FOUND, None)

    @property
    def found(self) -> bool:
        return self.citation is not None

    def data(self) -> dict[str, Any]:
        """The cell as the table's JSON gives it."""
        return {"text": self.text, "citation": self.citation}

    def event(self) -> dict[str, Any]:
        """The cell as its stream event gives it: which paper and aspect, then the cell."""
        return {"paper_id": self.paper_id, "aspect": self.aspect, **self.data()}


def quoted_cell(paper_id: str, aspect: Aspect, sources: Sequence[Source]) -> Cell:
    """The cell of `aspect` quoted from `sources` (one paper's passages, best first); an
    aspect about what the paper is (`Aspect.opening`) is looked for in its abstract first."""
    listed = _column(aspect, sources)
    if listed is not None:
        return Cell(paper_id, aspect.name, _cut(listed[0]), listed[1].chunk_id)
    abstract = [s for s in sources if is_abstract(s)]
    for within in ([abstract] if aspect.opening and abstract else []) + [list(sources)]:
        found = _quoted(aspect, within)
        if found is not None:
            text, source = found
            return Cell(paper_id, aspect.name, _cut(text), source.chunk_id)
    return Cell.not_found(paper_id, aspect.name)


def _quoted(aspect: Aspect, sources: Sequence[Source]) -> tuple[str, Source] | None:
    """The sentences the answerer chooses that fit, then (for an aspect with a cue) every
    other fitting piece of the sources, best source first; the first of those weighing
    most (`Aspect.weight`)."""
    answer = compose(aspect.question, sources, max_sentences=_CHOSEN)
    fitting = [(s.text, s.source) for s in answer.sentences if aspect.fits(s.text)]
    if aspect.cue is not None or aspect.kind:
        fitting += [
            (piece, source)
            for rank, source in enumerate(sources)
            for piece in _pieces(source, rank, raw=aspect.raw)
            if aspect.fits(piece)
        ]
    if not fitting:
        return None
    return max(fitting, key=lambda found: aspect.weight(found[0], found[1].section))


def _column(aspect: Aspect, sources: Sequence[Source]) -> tuple[str, Source] | None:
    """The row labels of the first table whose first column is headed by what the aspect
    asks for ("Dataset | Train | Dev | Test" over "Natural Questions | 79,168 | ..."), as
    "Dataset: Natural Questions, TriviaQA, ...", and its source."""
    if aspect.column is None:
        return None
    for source in (s for s in sources if s.kind == "table"):
        lines = [line.split("|") for line in source.text.split("\n") if "|" in line]
        if not lines or not aspect.column.match(lines[0][0].strip()):
            continue
        labels = [cells[0].strip() for cells in lines[1:] if _LABEL.search(cells[0])]
        if labels:
            return f"{lines[0][0].strip()}: {', '.join(dict.fromkeys(labels))}", source
    return None


def _pieces(source: Source, rank: int, *, raw: bool) -> list[str]:
    """The quotable sentences of a source, or with `raw` every piece of its text."""
    if raw:
        return split_sentences(source.text)
    return [s.text for s in source_sentences(source, rank) if not s.is_title]


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) <= MAX_CELL_CHARS:
        return flat
    cut = flat.rfind(" ", 0, MAX_CELL_CHARS)
    return flat[: cut if cut > 0 else MAX_CELL_CHARS] + "\u2026"
