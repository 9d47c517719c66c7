"""The PDF text stage: a PDF file in, its cleaned text blocks and metadata out.

`extract_pdfs` is the stage's one entry: every file is parsed (pypdfium2,
`parsing.py`), laid out (`layout/`) and cleaned (`text/`) in
a worker process of its own pool (`isolation.py`), so a file that hangs,
crashes the parser or needs more memory than the workers are allowed fails
alone, with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from ingest.index.records import ParsedPdf
from ingest.pdf.isolation import PDF_MAX_MB, PDF_TIMEOUT_S, Failure, run_isolated
from ingest.pdf.parsing import parse_pdf

__all__ = ["PDF_MAX_MB", "PDF_STAGE_VERSION", "PDF_TIMEOUT_S", "Failure", "extract_pdfs"]

# The version of what this stage makes of a PDF, recorded with every paper read from one
# (2: layout-aware body text, captions, tables and footnotes as chunks of their own, and
# page-1 metadata; 3: page 1's title and author block out of the body; 4: a page's last
# line set below most pages' text kept; 5: subscripts, small capitals and letter-spaced
# words read as words; 6: frames drawn around prose and figures' clipped drawing no longer
# taken for figures, so the prose inside stays body text; 7: a word set in smaller raised
# type on page 1 is no affiliation mark, so FlashAttention's abstract keeps its name; 8: four
# lines or more of two short cells are a table of names and values, not body text; 9: a
# table's lines have one cell a column, a header spread over the columns it spans; 10: the
# references section keeps its lines, from which the paper's references are read; 11: a
# footnote mark raised after a word or a sentence's end is left out: "library.1 Because";
# 12: a power of ten set as a superscript reads "10^20", not "1020"; 13: a line of a
# reference list that ends mid-phrase ("A Dataset and Evaluation Platform for") is no
# appendix heading, so the list goes on past it; 14: the last pages of a references
# section that list no references are an appendix; 15: page 1 read again for its
# affiliations (a campus kept, names after marks) and who is where, which the catalog now
# keeps); 16: a campus naming its system after itself ("University at Buffalo, SUNY") is
# a unit of that system; 17: a reference list's entries read whole across page and column
# breaks (a page's last line kept beside a line of odd size, a left column's line that
# overruns the gutter kept in its column), so the references are read again.
# Raise it when a change alters the text or
# metadata read from PDFs: `ingest pdfs` then parses again the papers an older version
# read, and only those.
PDF_STAGE_VERSION = "17"


def extract_pdfs(
    files: Sequence[Path],
    *,
    workers: int = 1,
    timeout_s: float = PDF_TIMEOUT_S,
    max_mb: int = PDF_MAX_MB,
) -> Iterator[tuple[Path, ParsedPdf | Failure]]:
    """Each file with its parsed text or the reason it has none, in the files' order.

    At most `workers` files are parsed at once; one that takes longer than
    `timeout_s` is stopped and fails with "timed out after N s", one that
    needs more than `max_mb` of memory fails with "over the memory limit of N MB".
    """
    done: dict[str, ParsedPdf | Failure] = {}
    order = iter(files)
    upcoming = next(order, None)
    names = [str(f) for f in files]
    results = run_isolated(
        parse_pdf, names, workers=workers, timeout_s=timeout_s, memory_limit_mb=max_mb
    )
    for name, outcome in results:
        done[name] = outcome
        while upcoming is not None and str(upcoming) in done:
            yield upcoming, done.pop(str(upcoming))
            upcoming = next(order, None)
