"""Which reader a file needs, told from its text: CSL-JSON opens with `[` or `{`, RIS has
a `TY  - ` line, BibTeX an `@`."""

from __future__ import annotations

import re

from chat.library.imports.bibtex_reader import read_bibtex
from chat.library.imports.csl import read_csl_json
from chat.library.imports.entries import Reading, UnreadableFile
from chat.library.imports.ris import read_ris

_RIS_RE = re.compile(r"^\ufeff?TY  - ", re.M)


def read_library(text: str) -> Reading:
    """The file's entries; UnreadableFile for text that is none of the three formats."""
    if "\x00" in text:
        raise UnreadableFile("the file is binary, not BibTeX, CSL-JSON or RIS")
    opening = text.lstrip("\ufeff \t\r\n")[:1]
    if opening in ("[", "{"):
        return read_csl_json(text)
    if _RIS_RE.search(text):
        return read_ris(text)
    if "@" in text:
        return read_bibtex(text)
    raise UnreadableFile("the file is not BibTeX, CSL-JSON or RIS")
