"""Which reader a file needs, given or told from its text: CSL-JSON opens with `[` or
`{`, RIS has a `TY  - ` line, BibTeX an `@`."""

from __future__ import annotations

import re
from collections.abc import Callable

from chat.library.imports.bibtex_reader import read_bibtex
from chat.library.imports.csl import read_csl_json
from chat.library.imports.entries import Reading, UnreadableFile
from chat.library.imports.ris import read_ris

_RIS_RE = re.compile(r"^\ufeff?TY  - ", re.M)
# The readers by the name of their format, as an import may give it.
READERS: dict[str, Callable[[str], Reading]] = {
    "bibtex": read_bibtex,
    "csl-json": read_csl_json,
    "ris": read_ris,
}


def read_library(text: str, format: str | None = None) -> Reading:
    """The file's entries, read as `format` when given, else as its text tells;
    UnreadableFile for text that is none of the three formats."""
    if "\x00" in text:
        raise UnreadableFile("the file is binary, not BibTeX, CSL-JSON or RIS")
    if format is not None:
        return READERS[format](text)
    opening = text.lstrip("\ufeff \t\r\n")[:1]
    if opening in ("[", "{"):
        return read_csl_json(text)
    if _RIS_RE.search(text):
        return read_ris(text)
    if "@" in text:
        return read_bibtex(text)
    raise UnreadableFile("the file is not BibTeX, CSL-JSON or RIS")
