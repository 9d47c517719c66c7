"""The extractive answer to a record question: the record's sentences that state the
field asked for, quoted with the paper's citation."""

from __future__ import annotations

import re
from collections.abc import Sequence

from chat.rag.records.graph import graph_answer
from chat.rag.records.questions import AUTHORS, DATE, GRAPH_FIELDS, PAPERS_BY, asked_field
from chat.rag.records.sources import FIELD_OPENINGS, KIND, MONTHS
from chat.rag.records.unowned import OPENING as UNOWNED
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
        if source.text.startswith(UNOWNED):
            pieces.append(f"{source.text} {source.citation}\n")
            continue
        stated = _stating(source.text, field)
        if stated and len(records) > 1 and field != AUTHORS:
            # Of several papers, each sentence names its own: "It was ..." says whose.
            stated = [re.sub(r"^It was ", f"{source.title} was ", s) for s in stated]
        if stated:
            pieces.append(f"{' '.join(stated)} {source.citation}\n")
    if field == DATE and len(records) == 2:
        pieces += _which_came_first(records)
    return pieces


def _which_came_first(records: Sequence[Source]) -> list[str]:
    """The line that compares two records' first submissions, when both are known."""
    one, other = (_first_submitted(r.text) for r in records)
    if one is None or other is None or one == other:
        return []
    first = records[0] if one < other else records[1]
    return [f"{first.title} came first. {first.citation}\n"]


def _first_submitted(text: str) -> tuple[int, int, int] | None:
    """(year, month, day) of "first submitted on 12 June 2017" or "in June 2017"."""
    match = re.search(r"first submitted (?:on (\d{1,2}) |in )(\w+) (\d{4})", text)
    if match is None or match[2] not in MONTHS:
        return None
    return int(match[3]), MONTHS.index(match[2]) + 1, int(match[1] or 0)


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
