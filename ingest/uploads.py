"""A user's own PDF: read by the PDF stage, matched to the library's papers, and otherwise
written by the same pipeline into an index of its own in one folder (catalog, vectors,
lexical index), which nothing but that folder holds: the library's never sees it, and
deleting the folder deletes every trace of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ingest.chunking import CountTokens
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.names.citations import papers_named, title_key
from ingest.index.records import ParsedPdf
from ingest.index.vectors.file_store import VectorFile
from ingest.index.writer import Indexer
from ingest.pdf import PDF_MAX_MB, PDF_TIMEOUT_S, Failure, extract_pdfs
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport, Skipped
from ingest.sources.units import fulltext_work, pdf_identity, prints_title

CATALOG_FILE = "catalog.sqlite"
LEXICAL_FOLDER = "lexical"


class UploadUnreadable(PaperchatError):
    """The PDF cannot be read or holds no text to index; the message says why."""


@dataclass(frozen=True)
class InLibrary:
    """The library holds the paper the PDF is: its id, and how it was found."""

    paper_id: str
    how: str  # "arxiv_id", "document" or "title"


@dataclass(frozen=True)
class Indexed:
    """The PDF's own index: the id it is cited by, its title, its pages and chunks."""

    doc_id: str
    title: str
    pages: int
    chunks: int


def read_pdf(path: Path, timeout_s: float = PDF_TIMEOUT_S, max_mb: int = PDF_MAX_MB) -> ParsedPdf:
    """The PDF's text, in a worker process with ingest's limits; UploadUnreadable with the
    parser's reason when it has none."""
    [(_path, outcome)] = list(extract_pdfs([path], timeout_s=timeout_s, max_mb=max_mb))
    if isinstance(outcome, Failure):
        raise UploadUnreadable(f"cannot read the PDF: {outcome.reason}")
    return outcome


def shown_title(parsed: ParsedPdf) -> str:
    """The title page 1 prints, else the document information's; "" when neither says."""
    title = parsed.header.title or parsed.metadata_title or parsed.first_page_title
    return " ".join(title.split())


def library_match(library: Catalog, parsed: ParsedPdf, file_name: str) -> InLibrary | None:
    """The library's paper the PDF is: by its arXiv id (the page-1 stamp, else the file
    name, when page 1 prints that paper's title), the same PDF's document id, or a title
    only one paper of the library has; None when none is it."""
    paper_id, _version, is_arxiv = pdf_identity(Path(file_name), parsed)
    known = library.get_paper(paper_id)
    if known is not None and (not known.title or prints_title(known.title, parsed.first_page_text)):
        return InLibrary(known.id, "arxiv_id" if is_arxiv else "document")
    found, how = papers_named(library.db, "", "", title_key(shown_title(parsed)))
    if len(found) == 1:
        return InLibrary(found[0], how)
    return None


def index_pdf(
    path: Path,
    parsed: ParsedPdf,
    folder: Path,
    embed: Callable[[Sequence[str]], np.ndarray],
    embedder_name: str,
    count_tokens: CountTokens,
    timeout_s: float = PDF_TIMEOUT_S,
) -> Indexed:
    """Write the PDF at `path` (inside `folder`) into the index in `folder`, made here by
    the ingest pipeline: its chunks, their places on the pages, its references."""
    catalog = Catalog(folder / CATALOG_FILE)
    try:
        work = fulltext_work(path, parsed, count_tokens, catalog)
        if isinstance(work, Skipped):
            raise UploadUnreadable(f"nothing to index in the PDF: {work.reason}")
        indexer = Indexer(
            catalog, VectorFile(folder, embedder_name), LexicalIndex(folder / LEXICAL_FOLDER)
        )
        pipeline = Pipeline(
            catalog, indexer, lambda texts: embed(texts), NoProgress(), pdf_timeout_s=timeout_s
        )
        report = pipeline.run([work], IngestReport())
    finally:
        catalog.close()
    if report.skipped:
        raise UploadUnreadable(f"nothing to index in the PDF: {report.skipped[0].reason}")
    return Indexed(work.paper.id, work.paper.title, parsed.page_count, report.chunks_added)
