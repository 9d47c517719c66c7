"""The table cell that answers a question asking for a number or a score.

A table source holds a header line and rows, their cells joined by " | "
(the header is the last line before the first row that holds no number, or
several such lines: those with as many cells as the rows, a spanning header's name
repeated in each of its columns, are read column by column). The
answer is the cell whose row label and column header hold what the question
names: the entity asked about in the row ("Fusion-in-Decoder (large)" for
FiD, its long form), a term of the question in the column ("TriviaQA"). It is
quoted as "row label · column header · value"; cells that tie are quoted
together ("... · 65.0; ... · 67.6"). Without a header as wide as its rows, a
whole row is quoted: the one that best holds the question's words
(`table_rows`), or the last that names the entity (`entity_row`), with the
header it is read under (`read_rows`: the lines with no number just before its
rows, "Parameter | 5-way | 20-way"), so that the reader sees which column holds
which number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chat.rag.extractive.answer_type import AnswerType
from chat.rag.extractive.question import QuestionTerms
from chat.rag.extractive.sentences import Sentence
from chat.rag.names.definitions import long_form_of, spells
from chat.rag.sources import Source
from ingest.index.lexical.analysis import terms

_CELL = "|"
_ROW_CELL = re.compile(r"[-+\u2212~\u2248]?\.?\d")  # a cell that starts as a number
_ROW_WORD = re.compile(r"[^\W\d_]{2,}")
_COLUMN_NAME = re.compile(r"[-+\u2212~\u2248]?\.?\d[\d.,]*-[^\W\d_]")  # "5-way", "1-shot"
_NUMBER_CELL = re.compile(r"^[-+\u2212~\u2248]?\d[\d.,]*\s?[%KMBx]?\S{0,2}$")
_REFERENCE_MARK = re.compile(r"\s?\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")
_TIED = 4  # cells quoted at most when several answer as well
_ABRIDGED = 3  # the shortest header word read as a question word cut short ("Acc")
# "(large)", "(Lewis et al., 2020)" after a row's label.
_ASIDE = re.compile(r"\s*\([^()]*\)")
_DURATION = re.compile(
    r"[\d.,]+\s*(?:s|sec|seconds?|min|minutes?|h|hrs?|hours?|d|days?|weeks?|months?)$",
    re.IGNORECASE,
)
# An algorithm box read as a table: "Algorithm 1 ..." over its steps "1: ...", "2: ...".
_ALGORITHM = re.compile(r"\s*Algorithm\s+\d")
_STEP = re.compile(r"(?:^|\|)\s*\d{1,2}:\s", re.MULTILINE)
_HOW_LONG = re.compile(r"\bhow long\b", re.IGNORECASE)
# A size a row label prints apart ("3 B", "169 M"), read as the question writes it ("3B").
_SPACED_SIZE = re.compile(r"(\d)\s+([KMBTkmbt])\b")


@dataclass(frozen=True)
class Cell:
    """One number of a table with what it is read under."""

    label: str
    column: str
    value: str

    def quoted(self) -> str:
        return f"{self.label} \u00b7 {self.column} \u00b7 {self.value}"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split(_CELL)]


def _is_number(cell: str) -> bool:
    """Whether a cell is a value: a number ("78.4", "632M") or a duration ("12 hours")."""
    return _NUMBER_CELL.match(cell) is not None or _DURATION.match(cell) is not None


def table_cells(text: str) -> list[Cell]:
    """The numbers of a table's text with their row labels and column headers; none
    when it has no header line as wide as its rows, or is an algorithm box."""
    if is_algorithm(text):
        return []
    lines = [_REFERENCE_MARK.sub("", line).strip() for line in text.split("\n") if line.strip()]
    headers: list[list[str]] = []
    found: list[Cell] = []
    for line in lines:
        cells = _cells(line)
        if len(cells) < 2:
            continue
        if not any(_is_number(c) for c in cells[1:]):
            if not found:
                headers.append(cells)
            continue
        header = _header(headers, len(cells))
        if not header:
            continue
        found += [
            Cell(cells[0], header[i], cell)
            for i, cell in enumerate(cells)
            if i > 0 and _is_number(cell) and header[i]
        ]
    return found


def _header(lines: Sequence[Sequence[str]], width: int) -> list[str]:
    """The column headers of rows `width` cells wide: the header lines as wide, read
    column by column ("TriviaQA" over "EM": "TriviaQA EM"); [] when none is as wide."""
    wide = [line for line in lines if len(line) == width]
    if not wide:
        return []
    return [" ".join(dict.fromkeys(line[i] for line in wide if line[i])) for i in range(width)]


def best_cells(
    query: QuestionTerms, answer: AnswerType, sources: Sequence[Source], rank: int = 0
) -> Sentence | None:
    """The cell (or the cells that tie) of the table sources whose row label holds an
    entity the question asks about (or its long form) or a term of it, and whose
    column header holds another term of it, as one quotable row; None when none does."""
    forms = _forms(answer, sources)
    best: list[tuple[Source, Cell]] = []
    top = 0
    for source in (s for s in sources if s.kind == "table"):
        for cell in table_cells(source.text):
            value = _match(cell, query, answer, forms)
            if value > top:
                best, top = [(source, cell)], value
            elif value == top and value and best and best[0][0] is source:
                best.append((source, cell))
    if not best:
        return None
    source = best[0][0]
    cells = [cell for _, cell in best[:_TIED]]
    cells += _also_asked(query, cells, table_cells(source.text))
    text = "; ".join(cell.quoted() for cell in cells)
    held = tuple(t for c in cells for t in terms(f"{c.label} {c.column}"))
    return Sentence(text, source, rank, 0, held, False, "", True)


def _also_asked(query: QuestionTerms, chosen: Sequence[Cell], cells: Sequence[Cell]) -> list[Cell]:
    """The cells of the first chosen cell's row under columns naming something else the
    question asks ("how many layers and what model dimension": "Layers" beside "Model
    Dimension"), in the table's order."""
    covered = {t for c in chosen for t in _abridged_in(query.content, set(terms(c.column)))}
    row = chosen[0].label
    also: list[Cell] = []
    for cell in cells:
        if cell.label != row or cell in chosen:
            continue
        new = _abridged_in(query.content, set(terms(cell.column))) - covered
        if new:
            also.append(cell)
            covered |= new
    return also


def entity_row(answer: AnswerType, sources: Sequence[Source], rank: int = 0) -> Sentence | None:
    """The last row (papers list their largest setting last) of a table whose label
    names an entity asked about, or its long form, quoted whole with the header it is
    read under (`read_rows`): the answer to a question for a score when no cell of the
    table answers by its row and column."""
    forms = _forms(answer, sources)
    found: Sentence | None = None
    for source in (s for s in sources if s.kind == "table"):
        for position, line, header in read_rows(source.text):
            cells = _cells(line)
            if names(cells[0], forms, answer) and any(_is_number(c) for c in cells[1:]):
                held = tuple(terms(f"{line} {header}"))
                found = Sentence(line, source, rank, position, held, False, header, True)
        if found is not None:
            return found
    return None


def names(label: str, forms: Sequence[str], answer: AnswerType) -> bool:
    """Whether a row label names an entity asked about: prints it or its long form, or
    is, its asides left out, a phrase that spells it ("Fusion-in-Decoder (large)")."""
    if answer.mentions(label) or any(f.lower() in label.lower() for f in forms):
        return True
    head = _ASIDE.sub("", label).strip()
    return any(spells(entity, head) for entity in answer.entities)


def _forms(answer: AnswerType, sources: Sequence[Source]) -> list[str]:
    """The entities asked about and their long forms, as the sources give them."""
    texts = [s.text for s in sources]
    given = [long_form_of(e, texts) for e in answer.entities]
    return list(dict.fromkeys(f for f in (*answer.forms(), *given) if f))


def _match(cell: Cell, query: QuestionTerms, answer: AnswerType, forms: Sequence[str]) -> int:
    """How well a cell answers: 0 unless both its row label and its column header hold
    something the question names (the label an entity it asks about, when it asks
    about one); more for each term they hold."""
    label, column = set(terms(cell.label)), set(terms(cell.column))
    named = names(cell.label, forms, answer)
    if forms and not named:
        return 0  # a row of another model than the one asked about
    in_label = len(query.content & label) + 2 * named
    in_column = len(_abridged_in(query.content, column)) + 2 * answer.mentions(cell.column)
    if not (in_label and in_column):
        return 0
    # "How long did it train?": "Training Time · 12 hours" over "Training Steps · 1M".
    lasting = "long" in query.weights and _DURATION.match(cell.value) is not None
    return in_label + in_column + lasting


def _abridged_in(wanted: frozenset[str], header: set[str]) -> set[str]:
    """The terms of `wanted` a header holds whole or cut short, as headers print them:
    "Params" for parameters, "Dim" for dimension, "Acc" for accuracy."""
    return {
        t
        for t in wanted
        if t in header or any(len(h) >= _ABRIDGED and t.startswith(h) for h in header)
    }


def labels_holding(wanted: frozenset[str], text: str) -> tuple[int, int]:
    """How many of the terms `wanted` a table's column headers hold, and how many its row
    labels (each row's first cell; "3 B" read as "3B") hold: a table answers a question
    for a value when both hold some ("Layers | Model Dimension" over "3 B | 32 | 2560" for
    the layers and dimension of a 3B model)."""
    header: set[str] = set()
    labels: set[str] = set()
    for _, line, above in read_rows(text):
        header.update(terms(above))
        labels.update(terms(_SPACED_SIZE.sub(r"\1\2", _cells(line)[0])))
    return len(_abridged_in(wanted, header)), len(wanted & labels)


def is_algorithm(text: str) -> bool:
    """Whether a table's text is an algorithm box ("Algorithm 1 FlashAttention", numbered
    steps "1: Load Q, K by blocks"): its numbers are steps and symbols, not values."""
    return _ALGORITHM.match(text) is not None or len(_STEP.findall(text)) >= 2


def may_answer(question: str, setting: frozenset[str], text: str) -> bool:
    """Whether a table can answer a question for a value: not an algorithm box read as a
    table ("Algorithm 1 DetectGPT ..."), with a column for the setting asked ("what
    mini-batch size"), and with a duration for "how long"."""
    if is_algorithm(text) or (setting and not labels_holding(setting, text)[0]):
        return False
    cells = [cell for line in text.split("\n") for cell in _cells(line)]
    return not _HOW_LONG.search(question) or any(_DURATION.match(c) for c in cells)


def table_rows(source: Source, rank: int) -> list[Sentence]:
    """The rows of a table source that hold a number and a word, each as printed; the
    terms of each are its own and its header's ("Model | Layers | Params" above
    "ViT-Huge | 32 | 632M": `read_rows`), bare numbers left out; the paper's reference
    numbers are left out of the row as of a sentence."""
    if source.kind != "table":
        return []
    rows = []
    for position, line, header in read_rows(source.text):
        if not _ROW_WORD.search(line):
            continue
        held = (*_worded(terms(line)), *_worded(terms(header)))
        rows.append(Sentence(line, source, rank, position, held, False, header, True))
    return rows


def read_rows(text: str) -> list[tuple[int, str, str]]:
    """(place, row, header) for each row of a table's text that holds a number, its
    reference numbers left out ("DPR [24]" would read as a source's number). A row's
    header is the run of lines with no number cell just before its rows ("5-way" is a
    column's name, not a number; a line of one label, "Published", is a group's): read
    column by column when every one is as wide as the row ("TriviaQA" over "EM":
    "TriviaQA EM"), else the first as printed; "" when the table opens with rows. A
    table printed after another in one chunk has its own header. None of an algorithm box."""
    if is_algorithm(text):
        return []
    lines = [_REFERENCE_MARK.sub("", line).strip() for line in text.split("\n")]
    rows: list[tuple[int, str, str]] = []
    headers: list[str] = []
    after_row = False
    for position, line in enumerate(lines):
        cells = _cells(line)
        if not any(_numeric(c) for c in cells):
            if any(cells[1:]):
                headers = [line] if after_row else [*headers, line]
                after_row = False
            continue
        after_row = True
        if _has_number_cell(line):
            rows.append((position, line, _header_line(headers, len(cells))))
    return rows


def _header_line(lines: Sequence[str], width: int) -> str:
    """The header of rows `width` cells wide (`read_rows`), its cells joined by " | "."""
    split = [_cells(line) for line in lines]
    if split and all(len(cells) == width for cells in split):
        return " | ".join(_header(split, width))
    return lines[0] if lines else ""


def _numeric(cell: str) -> bool:
    """Whether a cell reads as a number ("78.4", "18.8 GB", "48.70 ± 1.84%"), not as a
    column's name that starts with one ("5-way", "1-shot")."""
    return _ROW_CELL.match(cell) is not None and _COLUMN_NAME.match(cell) is None


def _has_number_cell(line: str) -> bool:
    """Whether a row holds a cell that is a number ("78.4", "-0.55%", "632M"); a header's
    "Top-20 accuracy" is not one."""
    return any(_ROW_CELL.match(cell.strip()) for cell in line.split("|"))


def _worded(found: Sequence[str]) -> tuple[str, ...]:
    """Terms without the bare numbers, which would only lengthen a row for scoring."""
    return tuple(t for t in found if not t.isdigit())
