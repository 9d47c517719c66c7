"""A paper's reference list, read from its PDF's references section into structured entries.

`read_references` is the one entry: the section's lines (`ingest/pdf/text/cleaning.py` keeps
them as printed) are split into entries (`entries.py`), each read into its fields
(`fields.py`); lines that are no reference (an appendix the headings missed) give none.
Beside the list, what a page's text refers to: its in-text citations (`marks.py`, named by
`linking.py`) and the terms the paper defines (`terms.py`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ingest.index.records import Block, Reference
from ingest.references.entries import split_entries
from ingest.references.fields import read_reference

__all__ = ["read_references"]

# A reference list longer than this is no paper's (PaLM's, the longest of the 38 real PDFs,
# holds about 250 entries): the rest is left out.
MAX_REFERENCES = 1000


def read_references(blocks: Iterable[Block]) -> tuple[Reference, ...]:
    """The references printed in the references section of a PDF's body blocks, in order."""
    lines = [
        line
        for block in blocks
        if block.is_references and block.kind == "fulltext"
        for line in block.text.split("\n")
        if line.strip()
    ]
    found = (read_reference(entry) for entry in split_entries(lines))
    return tuple(reference for reference in found if reference is not None)[:MAX_REFERENCES]
