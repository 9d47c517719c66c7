"""BibTeX as Zotero, Google Scholar and arXiv export it, read into entries.

Fields in braces (nested), in quotes or bare (a number or an `@string`
name), joined with `#`; `@comment`, `@preamble` and text between entries
are skipped. An entry that cannot be read is listed as unreadable with its
line, and reading goes on at the next line that opens with `@`.
"""

from __future__ import annotations

import re

from chat.library.imports.entries import (
    Entry,
    Reading,
    Unreadable,
    arxiv_id_in,
    doi_in,
    eprint_id,
    plain,
)
from ingest.errors import PaperchatError

_NAME_RE = re.compile(r"[A-Za-z0-9_\-:.+/']+")
_NEXT_ENTRY_RE = re.compile(r"\n[ \t]*@")
_BRACE_RE = re.compile(r"[{}]|\n@")
_QUOTED_RE = re.compile(r'[{}"]|\n@')
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


class _Broken(PaperchatError, ValueError):
    """An entry that cannot be read, with where it breaks."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self._counted = (0, 1)  # (a position, its line): lines are counted on from there
        self.macros = {month: month.capitalize() for month in _MONTHS}

    def line(self, at: int | None = None) -> int:
        at = self.at if at is None else at
        since, line = self._counted if at >= self._counted[0] else (0, 1)
        line += self.text.count("\n", since, at)
        self._counted = (at, line)
        return line

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def expect(self, chars: str) -> str:
        self.skip_space()
        if self.at >= len(self.text) or self.text[self.at] not in chars:
            found = "the end of the file" if self.at >= len(self.text) else repr(self.text[self.at])
            raise _Broken(f"line {self.line()}: expected one of {chars!r}, found {found}")
        self.at += 1
        return self.text[self.at - 1]

    def name(self) -> str:
        self.skip_space()
        match = _NAME_RE.match(self.text, self.at)
        if match is None:
            raise _Broken(f"line {self.line()}: expected a name")
        self.at = match.end()
        return match[0]

    def braced(self) -> str:
        """The text up to the brace that closes the one just read. An `@` that opens a line
        starts the next entry: a brace still open there is never closed."""
        start, depth = self.at, 1
        for found in _BRACE_RE.finditer(self.text, start):
            if found[0] not in "{}":
                break
            depth += 1 if found[0] == "{" else -1
            if not depth:
                self.at = found.end()
                return self.text[start : found.start()]
        raise _Broken(f"a brace opened on line {self.line(start)} is never closed")

    def quoted(self) -> str:
        """The text up to the quote that closes the one just read (a quote inside braces
        is text)."""
        start, depth = self.at, 0
        for found in _QUOTED_RE.finditer(self.text, start):
            if found[0] == '"' and not depth:
                self.at = found.end()
                return self.text[start : found.start()]
            if found[0] not in '{}"':
                break
            depth += {"{": 1, "}": -1}.get(found[0], 0)
        raise _Broken(f"a quote opened on line {self.line(start)} is never closed")

    def value(self) -> str:
        """A field's value: its parts joined by `#`."""
        parts = []
        while True:
            self.skip_space()
            char = self.text[self.at : self.at + 1]
            if char == "{":
                self.at += 1
                parts.append(self.braced())
            elif char == '"':
                self.at += 1
                parts.append(self.quoted())
            else:
                word = self.name()
                parts.append(self.macros.get(word.lower(), word))
            self.skip_space()
            if self.text[self.at : self.at + 1] != "#":
                return "".join(parts)
            self.at += 1

    def fields(self, closing: str) -> dict[str, str]:
        found: dict[str, str] = {}
        while True:
            self.skip_space()
            if self.text[self.at : self.at + 1] == closing:
                self.at += 1
                return found
            key = self.name().lower()
            self.expect("=")
            found[key] = self.value()
            if self.expect(",}" if closing == "}" else ",)") == closing:
                return found


def _entry(scanner: _Scanner, line: int) -> Entry | None:
    """The entry after its `@`; None for `@string`, `@comment` and `@preamble`."""
    kind = scanner.name().lower()
    if kind == "comment":
        scanner.skip_space()
        if scanner.text[scanner.at : scanner.at + 1] == "{":
            scanner.at += 1
            scanner.braced()
        return None
    closing = "}" if scanner.expect("{(") == "{" else ")"
    if kind == "preamble":
        scanner.value()
        scanner.expect(closing)
        return None
    if kind == "string":
        for key, value in scanner.fields(closing).items():
            scanner.macros[key] = value
        return None
    scanner.name()
    if scanner.expect("," + closing) == closing:
        return Entry(at=f"line {line}")
    return _fields_entry(scanner.fields(closing), line)


def _fields_entry(fields: dict[str, str], line: int) -> Entry:
    arxiv_id = eprint_id(fields.get("eprint", ""), fields.get("archiveprefix", ""))
    places = (fields.get(k, "") for k in ("doi", "url", "journal", "note", "howpublished"))
    return Entry(
        at=f"line {line}",
        title=plain(fields.get("title", "")),
        arxiv_id=arxiv_id or arxiv_id_in(places),
        doi=doi_in(fields.get("doi", "")),
    )


def read_bibtex(text: str) -> Reading:
    reading = Reading("bibtex")
    scanner = _Scanner(text)
    while (start := text.find("@", scanner.at)) >= 0:
        reading.count()
        scanner.at = start + 1
        line = scanner.line(start)
        try:
            entry = _entry(scanner, line)
        except _Broken as e:
            reading.unreadable.append(Unreadable(f"line {line}", str(e)))
            following = _NEXT_ENTRY_RE.search(text, start + 1)
            scanner.at = following.end() - 1 if following is not None else len(text)
            continue
        if entry is not None:
            reading.entries.append(entry)
    reading.count()
    return reading
