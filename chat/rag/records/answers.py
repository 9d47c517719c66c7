"""The extractive answer to a record question: the record's sentences that state the
field asked for, quoted with the paper's citation."""

from __future__ import annotations

import re
from collections.abc import Sequence

from chat.rag.records.graph import graph_answer
from chat.rag.records.questions import AUTHORS, GRAPH_FIELDS, PAPERS_BY, asked_field
from chat.rag.records.sources import FIELD_OPENINGS, KIND
from chat.rag.sources import Source

_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")


def record_answer(question: str, sources: Sequence[Source]) -> list[str]:
    """The pieces to stream, or [] when the question is no record question or the sources
    hold no record (the ordinary extractive answer follows)."""
    records = [s for s in sources if s.kind == KIND]
    field = asked_field(question)
    if not records or field is None:
        return []
    if field in GRAPH_FIELDS:
        return graph_answer(records)
    if field == PAPERS_BY:
        return [f"{s.text} {s.citation}\n" for s in records]
    pieces = []
    for source in records:
        stated = _stating(source.text, field)
        if stated:
            pieces.append(f"{' '.join(stated)} {source.citation}\n")
    return pieces


def _stating(text: str, field: str) -> list[str]:
    """The record's sentences that state `field`; the authors' one is the first sentence."""
    sentences = _sentences(text)
    if field == AUTHORS:
        return sentences[:1]
    openings = FIELD_OPENINGS.get(field, ())
    return [s for s in sentences if s.startswith(openings)]


def _sentences(text: str) -> list[str]:
    """The record's sentences: split only before the sentence openings the record writes."""
    starts = ("It was ", "Its ", "Categories:", "Journal reference:", "Venue, ", "The catalog ",
              "Comments:")  # fmt: skip
    pieces, current = [], ""
    for part in _SENTENCE_END.split(text):
        if current and part.startswith(starts):
            pieces.append(current)
            current = part
        else:
            current = f"{current} {part}".strip()
    return [*pieces, current] if current else pieces
