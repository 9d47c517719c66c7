"""Authors' names from the lines between a paper's title and its abstract.

Those lines mix names with affiliations, e-mails, addresses and notes, in
rows (names separated by commas or "and") or in grids (one author per
column, an affiliation and an e-mail under each name). A row counts as names
when its first part reads like a person's name; the parts that do not (an
affiliation after a name) are dropped, and so are the raised marks that tie
names to affiliations. Once a row that is not names has been seen, later
rows count only when set in the names' own weight, so an address under a
name in a grid ("Mountain View") is not taken for one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ingest.pdf.front.glyphs import Line

_SPLIT_RE = re.compile(r"\s*(?:,|;|\band\b|&|\s{2,})\s*")
_MARKS_RE = re.compile(
    r"[\u2020\u2021\u2217\u22c6\u2605\u2606\u2660-\u2667\u25c7\u25c6\u25a1\u2662\u2661\u22c4*§¶#]+"
)
_TRAILING_DIGITS_RE = re.compile(r"(?:\s*\d[\d,]*)+$")
# Words of affiliations, roles and notes, never of a person's name.
_NOT_NAME_WORDS = {
    "university", "univ", "universität", "universidad", "université", "institute", "institut",
    "college", "school", "department", "dept", "faculty", "laboratory", "lab", "labs", "center",
    "centre", "research", "inc", "inc.", "corp", "corporation", "company", "co", "ltd", "llc",
    "gmbh", "ai", "brain", "team", "group", "foundation", "academy", "technologies", "technology",
    "sciences", "science", "engineering", "computer", "member", "fellow", "student", "senior",
    "ieee", "acm", "google", "microsoft", "facebook", "meta", "openai", "deepmind", "amazon",
    "nvidia", "ibm", "intel", "apple", "baidu", "alibaba", "tencent", "bytedance", "huawei",
    "contribution", "contributed", "equal", "equally", "authors", "work", "demo", "preprint",
    "usa", "uk", "china", "conference", "proceedings", "abstract", "correspondence",
    "additional", "key", "words", "keywords", "phrases", "concepts", "terms", "index",
}  # fmt: skip
_PARTICLES = {
    "de",
    "van",
    "den",
    "der",
    "von",
    "da",
    "di",
    "du",
    "la",
    "le",
    "bin",
    "al",
    "dos",
    "del",
    "y",
}
_MIN_NAME_TOKENS = 2
_MAX_NAME_TOKENS = 6
_LARGER = 1.1  # a name-like row this much larger than the smallest one is a subtitle


def author_names(lines: Sequence[Line]) -> list[str]:
    """The names in the lines below a title, in reading order, each once."""
    rows = [(row, _row_names(row)) for row in _rows(lines)]
    sizes = [max(line.size for line in row) for row, found in rows if found]
    smallest = min(sizes, default=0.0)
    names: list[str] = []
    names_style: str | None = None
    interrupted = False
    for row, found in rows:
        if not found or max(line.size for line in row) > _LARGER * smallest:
            interrupted = interrupted or bool(names)
            continue
        style = _style(row)
        if names_style is None:
            names_style = style
        elif interrupted and style != names_style:
            continue
        names.extend(n for n in found if n not in names)
    return [_printed_case(name) for name in names]


def _printed_case(name: str) -> str:
    """A name set in capitals ("LUCY LU WANG", as some venues print them) in the case it
    is written in ("Lucy Lu Wang"); any other name as printed."""
    letters = [char for char in name if char.isalpha()]
    if len(letters) < 4 or not all(char.isupper() for char in letters):
        return name
    return " ".join(_capitalised(token) for token in name.split())


def _capitalised(token: str) -> str:
    if token.lower() in _PARTICLES:
        return token.lower()
    return re.sub(r"[^\W\d_]+", lambda m: m.group(0).capitalize(), token)


def _rows(lines: Sequence[Line]) -> Iterator[list[Line]]:
    """The lines grouped by baseline, top to bottom; each row's lines left to right."""
    pending = sorted(lines, key=lambda line: -line.base)
    row: list[Line] = []
    for line in pending:
        if row and abs(row[0].base - line.base) > 0.5 * max(row[0].size, line.size):
            yield sorted(row, key=lambda item: item.left)
            row = []
        row.append(line)
    if row:
        yield sorted(row, key=lambda item: item.left)


def _style(row: Sequence[Line]) -> str:
    styles = [line.style for line in row]
    return max(set(styles), key=styles.count)


def _row_names(row: Sequence[Line]) -> list[str]:
    """The names in one row, or none when the row does not start with a name."""
    text = "  ".join(line.text(marks=False, wide=True, small_caps=True) for line in row)
    if "@" in text or "://" in text or "www." in text.lower():
        return []
    parts = [_clean_name(part) for part in _SPLIT_RE.split(_MARKS_RE.sub(" ", text))]
    parts = [part for part in parts if part]
    if not parts or not _is_name(parts[0]):
        return []
    return [part for part in parts if _is_name(part)]


def _clean_name(part: str) -> str:
    part = _TRAILING_DIGITS_RE.sub("", part.strip(" .,;:*"))
    return " ".join(part.split())


def _is_name(part: str) -> bool:
    tokens = part.split()
    if not _MIN_NAME_TOKENS <= len(tokens) <= _MAX_NAME_TOKENS:
        return False
    if any(token.lower().strip(".,()") in _NOT_NAME_WORDS for token in tokens):
        return False
    if any(char.isdigit() for char in part):
        return False
    if all(token.lower() in _PARTICLES for token in tokens[:1]):
        return False
    return all(_is_name_token(token) for token in tokens)


def _is_name_token(token: str) -> bool:
    if token.lower() in _PARTICLES:
        return True
    if token.startswith("(") and token.endswith(")"):
        return len(token) > 2 and token[1].isupper()  # a nickname: Joseph (Yossi) Gil
    first = token[0]
    if not first.isalpha() or not first.isupper():
        return False
    return all(char.isalpha() or char in ".'\u2019-\u0301\u0300\u0308" for char in token)
