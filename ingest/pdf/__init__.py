"""The PDF text stage: a PDF file in, its cleaned text blocks and metadata out.

`extract_pdfs` is the stage's one entry: every file is parsed (pypdfium2,
`parsing.py`) and cleaned (`cleaning.py`, `headings.py`, `wordrepair.py`) in
a worker process of its own pool (`isolation.py`), so a file that hangs or
crashes the parser fails alone, with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from ingest.index.records import ParsedPdf
from ingest.pdf.isolation import Failure, run_isolated
from ingest.pdf.parsing import parse_pdf

__all__ = ["Failure", "extract_pdfs"]


def extract_pdfs(
    files: Sequence[Path], *, workers: int = 1, timeout_s: float = 120.0
) -> Iterator[tuple[Path, ParsedPdf | Failure]]:
    """Each file with its parsed text or the reason it has none, in the files' order.

    At most `workers` files are parsed at once; one that takes longer than
    `timeout_s` is stopped and fails with "timed out after N s".
    """
    done: dict[str, ParsedPdf | Failure] = {}
    order = iter(files)
    upcoming = next(order, None)
    results = run_isolated(parse_pdf, [str(f) for f in files], workers=workers, timeout_s=timeout_s)
    for name, outcome in results:
        done[name] = outcome
        while upcoming is not None and str(upcoming) in done:
            yield upcoming, done.pop(str(upcoming))
            upcoming = next(order, None)
