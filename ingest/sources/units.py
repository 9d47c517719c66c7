"""Turn metadata records and parsed PDFs into units ready for the index."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

from rapidfuzz import fuzz

from ingest.chunking import CountTokens, abstract_pieces, fulltext_pieces, make_chunks, unit_hash
from ingest.index.catalog import Catalog
from ingest.index.records import Paper, ParsedPdf, arxiv_url, file_name_id
from ingest.index.writer import UnitWork
from ingest.pdf import PDF_MAX_MB, PDF_TIMEOUT_S, Failure, extract_pdfs
from ingest.pdf import PDF_STAGE_VERSION as PDF_STAGE
from ingest.pdf.alignment import keys_of
from ingest.pdf.front.placements import placements
from ingest.pdf.store import PdfChanged, PdfStore
from ingest.references import read_references
from ingest.report import Skipped, Unchanged
from ingest.sources.arxiv_api import Harvested
from ingest.sources.dates import finer, first_submission
from ingest.sources.metadata import MAX_RECORD_BYTES, over_limit, read_metadata

_DOC_ID_LENGTH = 16
# A paper's record and the PDF that claims to be it agree when the record's title is printed
# at the top of the PDF's page 1: among its first this many letters and digits (after a
# running head, a licence notice or the arXiv stamp; the 38 real PDFs of the development set
# print their titles within the first 300).
TITLE_SEARCHED_KEYS = 1500
# How alike the title and the closest stretch of that text must be, 0 to 100 (rapidfuzz's
# partial ratio of their letters and digits: case, accents, TeX, punctuation and hyphenation
# do not count). Those 38 PDFs score 100 against their printed titles and 92 against a record
# that words one apart (STaR's), against any other of their titles 78 at most.
MIN_TITLE_LIKENESS = 85
_TEX_COMMAND = re.compile(r"\\(?:[A-Za-z]+|.)")


def abstract_work(paper: Paper, count_tokens: CountTokens, source: str, origin: str) -> UnitWork:
    pieces = abstract_pieces(paper, count_tokens)
    digest = unit_hash(paper, "abstract", pieces)
    chunks = make_chunks(paper, "abstract", pieces, digest)
    return UnitWork(paper, "abstract", source, origin, digest, tuple(chunks))


def pdf_identity(path: Path, parsed: ParsedPdf) -> tuple[str, str, bool]:
    """(paper id, version, is arXiv): from the page-1 stamp, else the file name, else the hash.

    arXiv prints the stamp on the paper itself, so it says what the file holds;
    a file name is only what someone called it, and a file named for one paper
    that holds another is indexed as the paper it holds.
    """
    named = file_name_id(path.stem)
    if parsed.stamp_id:
        same = named is not None and named[0] == parsed.stamp_id
        named_version = (named[1] or "") if named is not None and same else ""
        return parsed.stamp_id, parsed.stamp_version or named_version, True
    if named is not None:
        return named[0], named[1] or "", True
    return parsed.sha256[:_DOC_ID_LENGTH], "", False


def _letters(text: str) -> str:
    """The letters and digits of `text`, case-folded, without accents or TeX commands."""
    decomposed = unicodedata.normalize("NFKD", _TEX_COMMAND.sub(" ", text))
    return keys_of("".join(c for c in decomposed if not unicodedata.combining(c)))[0]


def prints_title(title: str, first_page: str) -> bool:
    """Whether `first_page` prints `title` at its top, loosely: see MIN_TITLE_LIKENESS."""
    wanted = _letters(title)
    if not wanted:
        return True
    top = _letters(first_page)[:TITLE_SEARCHED_KEYS]
    # A page shorter than the title would be looked for in the title instead.
    likeness = fuzz.partial_ratio if len(top) >= len(wanted) else fuzz.ratio
    return likeness(wanted, top) >= MIN_TITLE_LIKENESS


def _not_its_paper(parsed: ParsedPdf, paper_id: str, title: str) -> str:
    said = "the arXiv stamp on page 1" if parsed.stamp_id else "the file name"
    shown = title if len(title) <= 120 else title[:119] + "…"
    return f"{said} says {paper_id}, but page 1 does not print its title ({shown!r})"


def paper_from_pdf(
    path: Path, parsed: ParsedPdf, paper_id: str, version: str, is_arxiv: bool
) -> Paper:
    """The record of a paper known only from its PDF: what its first page says, else what
    the PDF's document information says, else the file's name for a title."""
    header = parsed.header
    title = header.title or parsed.metadata_title or parsed.first_page_title or path.stem
    abstract = header.abstract or " ".join(
        b.text for b in parsed.blocks if b.section.lower() == "abstract"
    )
    categories = (parsed.stamp_category,) if parsed.stamp_category else ()
    return Paper(
        id=paper_id,
        title=" ".join(title.split()),
        abstract=" ".join(abstract.split()),
        authors=header.authors or _document_authors(parsed.metadata_authors),
        categories=categories,
        version=version,
        # A later version's file says when that version came, not when the paper did.
        published=first_submission(paper_id, header.published) if is_arxiv else header.published,
        updated=header.updated,
        is_arxiv=is_arxiv,
    )


def _document_authors(value: str) -> str:
    """The document information's author list ("A ; B", "A and B") as "A, B"."""
    names = re.split(r"\s*(?:;|\band\b)\s*", value)
    return ", ".join(name.strip(" ,") for name in names if name.strip(" ,"))


def fulltext_work(
    path: Path,
    parsed: ParsedPdf,
    count_tokens: CountTokens,
    catalog: Catalog,
    known: Paper | None = None,
) -> UnitWork | Skipped:
    """The full-text unit of a parsed PDF, attached to the paper's record when there is one;
    skipped when the record's title is not printed on page 1 (the PDF is another paper)."""
    paper_id, version, is_arxiv = pdf_identity(path, parsed)
    if known is None or known.id != paper_id:
        known = catalog.get_paper(paper_id)
    from_pdf = paper_from_pdf(path, parsed, paper_id, version, is_arxiv)
    if known is not None:
        known = _without_pdf_fields(known, catalog)
        # A record's own title (not one an earlier reading of a PDF gave it) must be the PDF's.
        if known.title and not prints_title(known.title, parsed.first_page_text):
            return Skipped(str(path), _not_its_paper(parsed, paper_id, known.title))
        paper = _fill_gaps(dataclasses.replace(known, version=version or known.version), from_pdf)
    else:
        paper = from_pdf
    if (reason := over_limit(paper)) is not None:
        return Skipped(str(path), reason)
    pieces = fulltext_pieces(parsed.blocks, count_tokens)
    if not pieces:
        return Skipped(str(path), "no text left after removing references and page furniture")
    digest = unit_hash(paper, "fulltext", pieces)
    chunks = make_chunks(paper, "fulltext", pieces, digest)
    pdf = (parsed.sha256, parsed.page_count, path.stem, PDF_STAGE, str(path.resolve()))
    fallback = parsed.stats.get("pages_fallback", 0)
    references = read_references(parsed.blocks)
    return UnitWork(
        paper, "fulltext", "pdf", str(path), digest, tuple(chunks), pdf, fallback, references,
        parsed.header.affiliations, placements(parsed.front_lines, paper.authors) or (),
    )  # fmt: skip


def _without_pdf_fields(known: Paper, catalog: Catalog) -> Paper:
    """The stored paper without the fields its PDF's page 1 gave it: this reading of the
    PDF gives them again, as this stage reads them (a newer stage may read them better)."""
    row = catalog.paper_row(known.id)
    if row is None:
        return known
    read = {name for name, origin in row.field_sources.items() if origin == "pdf"}

    def kept(name: str) -> str:
        return "" if name in read else str(getattr(known, name))

    return dataclasses.replace(
        known, title=kept("title"), authors=kept("authors"), abstract=kept("abstract"),
        published=kept("published"), updated=kept("updated"),
    )  # fmt: skip


def _fill_gaps(record: Paper, from_pdf: Paper) -> Paper:
    """The record, with what its PDF's page 1 says where the record says nothing."""
    return dataclasses.replace(
        record,
        title=record.title or from_pdf.title,
        authors=record.authors or from_pdf.authors,
        abstract=record.abstract or from_pdf.abstract,
        published=finer(record.published, from_pdf.published) or from_pdf.published,
        updated=record.updated or from_pdf.updated,
    )


def _sha256(path: Path) -> str | None:
    try:
        with path.open("rb") as file:
            return hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return None  # the parser reports why it cannot be read


def _unparsed(
    files: list[Path], catalog: Catalog, store: PdfStore | None
) -> tuple[list[Path], list[Unchanged]]:
    """The files this PDF stage has not read yet; the others are indexed as they are (and
    kept in the store, for an index built before there was one)."""
    todo: list[Path] = []
    unchanged: list[Unchanged] = []
    for path in files:
        digest = _sha256(path)
        paper_id = catalog.current_pdf(digest, PDF_STAGE, str(path.resolve())) if digest else None
        if paper_id is None or digest is None:
            todo.append(path)
            continue
        if store is not None:
            try:
                store.put(path, digest)
            except PdfChanged:
                todo.append(path)  # read again, as it is now
                continue
        unchanged.append(Unchanged(paper_id, str(path)))
    return todo, unchanged


def _not_kept(path: Path, parsed: ParsedPdf, store: PdfStore | None) -> Skipped | None:
    """Copy the PDF into the store (when there is one) before the catalog records it, so
    that every node can open it; skipped if the file changed since it was parsed."""
    if store is not None:
        try:
            store.put(path, parsed.sha256)
        except PdfChanged as e:
            return Skipped(str(path), str(e))
    return None


def find_pdfs(paths: Iterable[Path]) -> tuple[list[Path], list[Skipped]]:
    """The PDF files named or inside the folders named, in a stable order."""
    found: list[Path] = []
    skipped: list[Skipped] = []
    for path in paths:
        if path.is_dir():
            try:
                found.extend(sorted(p for p in path.rglob("*") if p.suffix.lower() == ".pdf"))
            except OSError as e:
                skipped.append(Skipped(str(path), f"cannot list folder: {e.strerror or e}"))
        elif path.is_file():
            found.append(path)
        elif path.exists():
            skipped.append(Skipped(str(path), "not a file or folder"))
        else:
            skipped.append(Skipped(str(path), "no such file or folder"))
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique, skipped


def metadata_items(
    path: Path,
    count_tokens: CountTokens,
    limit: int | None = None,
    max_record_bytes: int = MAX_RECORD_BYTES,
) -> Iterator[UnitWork | Skipped]:
    """The abstract unit of every paper in a metadata file, and the lines skipped."""
    for item in read_metadata(path, limit, max_record_bytes=max_record_bytes):
        if isinstance(item, Skipped):
            yield item
        else:
            yield abstract_work(item, count_tokens, "metadata", str(path))


def pdf_items(
    paths: Iterable[Path],
    catalog: Catalog,
    count_tokens: CountTokens,
    workers: int = 1,
    timeout_s: float = PDF_TIMEOUT_S,
    max_mb: int = PDF_MAX_MB,
    store: PdfStore | None = None,
) -> Iterator[UnitWork | Skipped | Unchanged]:
    """The full-text unit of every PDF named or found in the folders named, each PDF
    copied into `store` (by its SHA-256) before its unit is handed on.

    A PDF indexed before, unchanged, by this version of the PDF stage is not parsed again.
    """
    files, skipped = find_pdfs(paths)
    yield from skipped
    files, unchanged = _unparsed(files, catalog, store)
    yield from unchanged
    parsed = extract_pdfs(files, workers=workers, timeout_s=timeout_s, max_mb=max_mb)
    for path, outcome in parsed:
        if isinstance(outcome, Failure):
            yield Skipped(str(path), outcome.reason)
        elif (changed := _not_kept(path, outcome, store)) is not None:
            yield changed
        else:
            yield fulltext_work(path, outcome, count_tokens, catalog)


def arxiv_items(
    harvested: Iterable[Harvested],
    catalog: Catalog,
    count_tokens: CountTokens,
    timeout_s: float = PDF_TIMEOUT_S,
    max_mb: int = PDF_MAX_MB,
    store: PdfStore | None = None,
) -> Iterator[UnitWork | Skipped]:
    """The abstract and, when its PDF came, the full text of every harvested paper (its PDF
    copied into `store`)."""
    for paper, pdf_path, failure in harvested:
        if pdf_path is None and failure is not None and not paper.title:
            yield Skipped(f"arXiv:{paper.id}", failure)
            continue
        if (reason := over_limit(paper)) is not None:
            yield Skipped(f"arXiv:{paper.id}", reason)
            continue
        yield abstract_work(paper, count_tokens, "arxiv", arxiv_url(paper.id))
        if pdf_path is None:
            if failure is not None:
                yield Skipped(f"arXiv:{paper.id} PDF", failure)
            continue
        for path, outcome in extract_pdfs([pdf_path], timeout_s=timeout_s, max_mb=max_mb):
            if isinstance(outcome, Failure):
                yield Skipped(str(path), outcome.reason)
            elif (changed := _not_kept(path, outcome, store)) is not None:
                yield changed
            else:
                yield fulltext_work(path, outcome, count_tokens, catalog, known=paper)
