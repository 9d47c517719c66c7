"""Which author is at which institution, where page 1 of a paper's PDF says so.

Two ways a page says it, tried in this order:

- **Marks.** Raised marks after the authors' names ("Eric Alcaide2,3,4" and a star) and
  the same marks before the affiliations ("2EleutherAI 3University of
  Barcelona"): an author is at each institution one of their marks leads. A
  mark that leads no affiliation (a star for equal contribution) ties nothing.
- **Blocks.** Without such marks, an author block followed by affiliation
  lines ("Ashish Vaswani / Google Brain / avaswani@google.com"): the
  authors of the block are at the institutions below it; affiliations set
  in columns under names in columns go to the name above them.

Where neither holds the page says nothing of who is where: `None`. The
institutions are named as `ingest/pdf/front/affiliations.py` reads them, so
they are the names the catalog holds. Ingest reads it once, from the lines
above the abstract that the parser keeps (`front_matter`), and the catalog
keeps each author's institutions by their place in the byline (`placements`;
`paper_author_institutions`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ingest.index.names.institutions import institution_key, with_team_parents
from ingest.index.names.people import fold, written_names
from ingest.pdf.front.affiliations import read_affiliations
from ingest.pdf.front.glyphs import Line

_ABSTRACT_RE: Final = re.compile(r"^\s*a\s?bstract\b", re.I)
_FRONT_LINES: Final = 40  # without an "Abstract" heading, the lines read at most
_MARK_TOKEN_RE: Final = re.compile(r"\d+|[^\d\s,]")
_WIDE_GAP: Final = 0.6  # in type sizes: a gap this wide parts two columns
# Symbols that mark an affiliation or a note even when set at full size (♠ University ...).
_SYMBOLS: Final = frozenset("*\u2020\u2021\u2217\u22c6\u2605\u2606\u25c7\u25c6\u25a1\u22c4§¶#")
_SUITS: Final = range(0x2660, 0x2668)
# A line of marks alone, set apart from the text they lead ("3" above "Inria, Paris").
_MARKS_LINE_RE: Final = re.compile(r"^[\d,\s]{1,8}$")

Method = Literal["marks", "blocks"]


@dataclass(frozen=True)
class Affiliated:
    """Each author (as the record or page 1 names them) with the institutions the page puts
    them at, and how the page says so."""

    method: Method
    authors: dict[str, tuple[str, ...]]

    def at(self, institution: str) -> list[str]:
        """The authors the page puts at `institution` (compared by key)."""
        key = institution_key(institution)
        return [
            author
            for author, names in self.authors.items()
            if key in {institution_key(n) for n in names}
        ]


@dataclass(frozen=True)
class _Run:
    """A piece of a line: its glyphs from `start` to `end`, raised marks or text."""

    start: int
    end: int
    marks: bool
    text: str


def authors_at(lines: Sequence[Line], authors: Sequence[str]) -> Affiliated | None:
    """Who is where by page 1's `lines` (`ingest/pdf/front/glyphs.py`), for the paper's
    `authors`; None when the page does not say."""
    front = front_matter(lines)
    found = _by_marks(front, authors)
    if found:
        return Affiliated("marks", found)
    found = _by_blocks(front, authors)
    return Affiliated("blocks", found) if found else None


def placements(front: Sequence[Line], authors: str) -> tuple[tuple[int, str], ...] | None:
    """(place in the byline from 0, institution) for each author of the paper's `authors`
    string page 1's `front` lines put somewhere; None when the page does not say."""
    written = written_names(authors)
    found = authors_at(front, written)
    if found is None:
        return None
    return tuple(
        (position, institution)
        for position, author in enumerate(written)
        for institution in found.authors.get(author, ())
    )


def front_matter(lines: Sequence[Line]) -> list[Line]:
    """The lines above the abstract (or the first ones), empty lines left out."""
    kept = [line for line in lines if line.glyphs]
    for index, line in enumerate(kept[: 3 * _FRONT_LINES]):
        if _ABSTRACT_RE.match(line.text(marks=False)):
            return kept[:index]
    return kept[:_FRONT_LINES]


def _is_symbol(char: str) -> bool:
    return char in _SYMBOLS or ord(char) in _SUITS


def _runs(line: Line) -> list[_Run]:
    """The line cut into runs of marks and runs of text, in order: raised marks and the
    symbols that mark, and a line of digits alone."""
    runs: list[_Run] = []
    if _MARKS_LINE_RE.match(line.text()):
        return [_Run(0, len(line.glyphs), True, line.text())]
    raised = line.marks()
    marks = [m or _is_symbol(g.char) for m, g in zip(raised, line.glyphs, strict=True)]
    start = 0
    for index in range(1, len(line.glyphs) + 1):
        if index == len(line.glyphs) or marks[index] != marks[start]:
            runs.append(_Run(start, index, marks[start], _text(line, start, index)))
            start = index
    return runs


def _text(line: Line, start: int, end: int) -> str:
    chars = []
    for index in range(start, end):
        if index in line.spaces_before and index > start:
            chars.append(" ")
        chars.append(line.glyphs[index].char)
    return " ".join("".join(chars).split())


def _part(line: Line, start: int, end: int) -> Line:
    """The glyphs of `line` from `start` to `end`, as a line of their own."""
    spaces = {i - start for i in line.spaces_before if start < i < end}
    return Line(glyphs=line.glyphs[start:end], spaces_before=spaces)


def _tokens(marks: str) -> set[str]:
    return set(_MARK_TOKEN_RE.findall(marks))


def _institutions(line: Line, led: bool = False) -> list[str]:
    """The institutions `line` names; `led` when an affiliation mark leads it."""
    return [name for name, _ in with_team_parents(read_affiliations([line], led=led))]


# Marks


def _by_marks(front: list[Line], authors: Sequence[str]) -> dict[str, tuple[str, ...]]:
    led: dict[str, list[str]] = {}  # a mark -> the institutions it leads
    apart: list[Line] = []  # marks on a line of their own, set apart from their text
    for line in front:
        runs = _runs(line)
        if runs and all(run.marks for run in runs):
            apart.append(line)
            continue
        leading = ""
        for number, run in enumerate(runs):
            if run.marks:
                leading += run.text
                continue
            part = _part(line, run.start, run.end)
            if number == 0:
                leading = "".join(m.text() for m in apart if _leads(m, line))
            ahead = number == 0 or _leads_text(line, runs[number - 1])
            names = _institutions(part, led=bool(leading) and ahead)
            for token in _tokens(leading) if names else ():
                led.setdefault(token, []).extend(n for n in names if n not in led.get(token, []))
            leading = ""
    if not led:
        return {}
    found = {}
    for author, tokens in _author_marks(front, authors).items():
        names = [n for t in sorted(_known(tokens, led)) for n in led[t]]
        if names:
            found[author] = tuple(dict.fromkeys(names))
    return found


def _leads_text(line: Line, marks: _Run) -> bool:
    """Whether the run of marks is set nearer the text after it than the text before it
    ("2EleutherAI", not "Peng1 Eric" nor "Rajbhandari*, Jeff")."""
    glyphs = line.glyphs
    if marks.end >= len(glyphs) or not glyphs[marks.end].char.isalnum():
        return False
    if marks.start == 0:
        return True
    before = glyphs[marks.start].left - glyphs[marks.start - 1].right
    return glyphs[marks.end].left - glyphs[marks.end - 1].right < before


def _known(tokens: set[str], led: dict[str, list[str]]) -> set[str]:
    """The tokens that lead an affiliation; digits run together ("12" after a name whose
    marks are 1 and 2, set without a comma) read one by one when only those lead one."""
    known = set()
    for token in tokens:
        if token in led:
            known.add(token)
        elif token.isdigit() and all(digit in led for digit in token):
            known.update(token)
    return known


def _leads(marks: Line, line: Line) -> bool:
    """Whether a line of marks alone sits just left of `line`'s start, on its level."""
    size = line.size
    before = -0.5 * size <= line.left - marks.right <= 1.5 * size
    return before and abs(marks.base - line.base) < 1.5 * size


def _author_marks(front: list[Line], authors: Sequence[str]) -> dict[str, set[str]]:
    """The mark tokens after each author's name, where the name is found."""
    found: dict[str, set[str]] = {}
    for line in front:
        runs = _runs(line)
        for number, run in enumerate(runs):
            if run.marks:
                continue
            text = fold(run.text).rstrip(" ,")
            marks = runs[number + 1].text if number + 1 < len(runs) else ""
            for author in authors:
                if author not in found and text.endswith(fold(author)):
                    found[author] = _tokens(marks)
    return found


# Blocks


def _by_blocks(front: list[Line], authors: Sequence[str]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    block: list[tuple[str, float]] = []  # (author, the middle of their name)
    seen: set[str] = set()  # a byline names each author once; later mentions are no byline
    placed = False
    for line in front:
        named = [(a, x) for a, x in _names_in(line, authors) if a not in seen]
        seen.update(a for a, _ in named)
        if len(named) == 1 and (beside := _institutions(line)):
            found[named[0][0]] = beside  # "TAL AUGUST, University of Washington, USA"
            block, placed = [], False
            continue
        if named:
            if placed:
                block, placed = [], False
            block.extend(named)
            continue
        columns = _columns(line)
        pieces = [(middle, _institutions(part)) for middle, part in columns]
        if not block or not any(names for _, names in pieces):
            continue
        placed = True
        for middle, names in pieces:
            for author in _under(block, middle, len(columns)):
                found.setdefault(author, []).extend(n for n in names if n not in found[author])
    return {author: tuple(names) for author, names in found.items() if names}


def _names_in(line: Line, authors: Sequence[str]) -> list[tuple[str, float]]:
    """The authors named on the line, each with the middle of their name across the page."""
    text = fold(line.text(marks=False))
    named = []
    for author in authors:
        at = text.find(fold(author))
        if at >= 0:
            share = (at + len(author) / 2) / max(len(text), 1)
            named.append((author, line.left + share * (line.right - line.left)))
    return named


def _columns(line: Line) -> list[tuple[float, Line]]:
    """The line cut at wide gaps into columns, each with its middle across the page."""
    cuts = [0]
    for index in range(1, len(line.glyphs)):
        gap = line.glyphs[index].left - line.glyphs[index - 1].right
        if gap > _WIDE_GAP * line.size:
            cuts.append(index)
    cuts.append(len(line.glyphs))
    parts = [_part(line, a, b) for a, b in itertools.pairwise(cuts) if b > a]
    return [((part.left + part.right) / 2, part) for part in parts]


def _under(block: list[tuple[str, float]], middle: float, columns: int) -> list[str]:
    """The block's authors a column's affiliations belong to: all of them under one column;
    under several, those whose name is nearest above it."""
    if columns == 1:
        return [author for author, _ in block]
    nearest = min(abs(x - middle) for _, x in block)
    return [author for author, x in block if abs(x - middle) == nearest]
