"""What a reader may draw over a PDF page besides its text: the page's citation marks, each
with the entry of the paper's reference list it names as the paper prints it and, when the
library holds the cited work, that paper.

Marks are read from the page's text (`ingest.references.marks`) and named by the paper's
reference list (`ingest.references.linking`), which is read once a paper from its pages'
text and the references the catalog keeps, and again when the catalog changes (a paper
ingested since may be the one a reference names). Its defined terms are read with it
(`terms.py`): `definitions` holds each term used on the page with its definition. A page's
annotations are kept too. A mark no entry fits is left out. `discussions` holds the
sentences of other papers' PDFs that cite the paper and speak of this page
(`discussions.py`), newest first. `skim` holds the page's sentences that state the paper's
goal, method, results or limitations (`skim.py`), each with its boxes; `Annotations.skim`
lists them for the whole paper.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Final

from pydantic import BaseModel

from chat.library.papers import PaperNotFound
from chat.rag.extractive.sentences import split_sentences
from chat.service.web.papers.discussions import CitingPdf, Discussion, discussions_of
from chat.service.web.papers.pdfpages import PageOutOfRange, Pdf, PdfPages, PdfUnavailable
from chat.service.web.papers.skim import Facet, SkimSentence, skim
from chat.service.web.papers.terms import (
    DefinedTerm,
    PaperTerms,
    defined_on_page,
    definition_reader,
    page_uses,
)
from ingest.index.catalog import Catalog
from ingest.index.records import Box, Paper
from ingest.index.tex import readable_tex
from ingest.references.linking import Entry, ReferenceList

# The most marks one page answers with (a page of a survey's citations has a few hundred).
MAX_MARKS: Final = 500
# Reference lists and pages kept.
KEPT_PAPERS: Final = 32
KEPT_PAGES: Final = 512
_MAX_SUMMARY_CHARS: Final = 300


class LibraryPaper(BaseModel):
    """The library's paper a reference names."""

    id: str
    title: str
    authors: str
    year: int | None
    summary: str  # the first sentence of its abstract ("" without one)
    url: str  # its page
    reader_url: str  # its page, at the reader


class CitedReference(BaseModel):
    """One entry of the paper's reference list: its number when the list is numbered, its
    text as printed, its fields and the library's paper it names (null: not in the library)."""

    number: int | None
    printed: str
    title: str
    authors: str
    year: int | None
    paper: LibraryPaper | None


class MarkBox(BaseModel):
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class CitationMark(BaseModel):
    """An in-text citation: its text, where it is printed (a box a line it spans, fractions
    of the page from its top left), its form and the entries it names."""

    text: str
    style: str  # "numeric", "author-year" or "narrative"
    boxes: list[MarkBox]
    references: list[CitedReference]


class SkimMark(BaseModel):
    """A sentence of the page that states the paper's goal, method, a result or a
    limitation, and where it is printed."""

    facet: Facet
    text: str
    boxes: list[MarkBox]


class PageAnnotations(BaseModel):
    """A page's annotations: its citation marks, the defined terms it uses, the library's
    sentences citing the paper that speak of this page, and the sentences skimming tints."""

    paper_id: str
    page: int
    pages: int
    citations: list[CitationMark]
    definitions: list[DefinedTerm]
    discussions: list[Discussion]
    skim: list[SkimMark]


class SkimmedSentence(BaseModel):
    page: int
    facet: Facet
    text: str


class PaperSkim(BaseModel):
    """The sentences skimming tints over the whole paper, in reading order."""

    paper_id: str
    pages: int
    sentences: list[SkimmedSentence]


@dataclass(frozen=True)
class _PaperList:
    references: ReferenceList
    resolved: tuple[str | None, ...]  # the library's paper of each stored reference
    terms: PaperTerms
    skim: tuple[SkimSentence, ...]


def _by_id(paper_id: str) -> Pdf:
    return paper_id


class Annotations:
    """Page annotations of the catalog's PDFs, read through the reader's `PdfPages`.

    `pdf_of` names the PDF of a paper of `catalog` to `PdfPages` (by default its id in the
    library's catalog; a user's upload gives its own file); `discussed` False leaves out the
    sentences of other papers citing it (an upload's own index holds no other paper)."""

    def __init__(
        self,
        pdf_pages: PdfPages,
        catalog: Callable[[], Catalog],
        pdf_of: Callable[[str], Pdf] = _by_id,
        discussed: bool = True,
    ) -> None:
        self._pdf_pages = pdf_pages
        self._catalog = catalog
        self._pdf_of = pdf_of
        self._with_discussions = discussed
        self._lock = threading.Lock()
        self._lists: OrderedDict[tuple[str, str, int], _PaperList] = OrderedDict()
        self._pages: OrderedDict[tuple[str, str, int, int], PageAnnotations] = OrderedDict()
        self._discussed: OrderedDict[tuple[str, int], list[Discussion]] = OrderedDict()

    def page(self, paper_id: str, page: int, before_render: Callable[[], None]) -> PageAnnotations:
        """The annotations of page `page` (1-based): PaperNotFound for a paper the library
        lacks, PdfUnavailable and PageOutOfRange as the reader's pages raise them."""
        catalog = self._catalog()
        if catalog.get_paper(paper_id) is None:
            raise PaperNotFound(f"no paper {paper_id!r} in the library")
        info, texts = self._pdf_pages.page_texts(self._pdf_of(paper_id), before_render)
        if not 1 <= page <= info.pages:
            raise PageOutOfRange(f"{paper_id!r} has pages 1 to {info.pages}, not {page}")
        generation = catalog.generation()
        key = (paper_id, info.version, generation, page)
        with self._lock:
            kept = self._pages.get(key)
        if kept is not None:
            return kept
        listed = self._list(catalog, paper_id, (paper_id, info.version, generation), texts)
        marks = listed.references.page_marks(page, texts[page - 1])[:MAX_MARKS]
        uses = page_uses(listed.terms, page, texts[page - 1])
        skimmed = [s for s in listed.skim if s.page == page]
        ranges = [(mark.start, mark.end - mark.start) for mark, _ in marks]
        ranges += [(start, end - start) for _term, start, end in uses]
        ranges += [(s.start, s.end - s.start) for s in skimmed]
        found_boxes = self._pdf_pages.text_boxes(
            self._pdf_of(paper_id), page, lambda _text: ranges, before_render
        ) or [[] for _ in ranges]
        boxes = found_boxes[: len(marks)]
        use_boxes = found_boxes[len(marks) : len(marks) + len(uses)]
        skim_boxes = found_boxes[len(marks) + len(uses) :]
        definitions = defined_on_page(
            listed.terms, uses, use_boxes, texts[page - 1],
            definition_reader(self._pdf_pages, self._pdf_of(paper_id), before_render),
        )  # fmt: skip
        citations = [
            CitationMark(
                text=mark.text,
                style=mark.style,
                boxes=[_box(box) for box in found],
                references=[_cited(catalog, entry, listed) for entry in entries],
            )
            for (mark, entries), found in zip(marks, boxes, strict=True)
        ]
        discussed = self.discussions(paper_id, before_render)
        annotations = PageAnnotations(
            paper_id=paper_id, page=page, pages=info.pages, citations=citations,
            definitions=definitions, discussions=[d for d in discussed if d.placed_on == page],
            skim=[
                SkimMark(facet=s.facet, text=s.text, boxes=[_box(b) for b in found])
                for s, found in zip(skimmed, skim_boxes, strict=True)
            ],
        )  # fmt: skip
        with self._lock:
            self._pages[key] = annotations
            while len(self._pages) > KEPT_PAGES:
                self._pages.popitem(last=False)
        return annotations

    def skim(self, paper_id: str, before_render: Callable[[], None]) -> PaperSkim:
        """The paper's sentences skimming tints, every page's: PaperNotFound, PdfUnavailable
        as `page` raises them."""
        catalog = self._catalog()
        if catalog.get_paper(paper_id) is None:
            raise PaperNotFound(f"no paper {paper_id!r} in the library")
        info, texts = self._pdf_pages.page_texts(self._pdf_of(paper_id), before_render)
        listed = self._list(
            catalog, paper_id, (paper_id, info.version, catalog.generation()), texts
        )
        sentences = [SkimmedSentence(page=s.page, facet=s.facet, text=s.text) for s in listed.skim]
        return PaperSkim(paper_id=paper_id, pages=info.pages, sentences=sentences)

    def discussions(self, paper_id: str, before_render: Callable[[], None]) -> list[Discussion]:
        """The sentences of the library's PDFs citing `paper_id` (`discussions.py`), each
        placed on a page of its PDF when it has one; kept while the catalog stays as it is."""
        if not self._with_discussions:
            return []
        catalog = self._catalog()
        key = (paper_id, catalog.generation())
        with self._lock:
            kept = self._discussed.get(key)
        if kept is not None:
            return kept
        texts = self._texts_of(paper_id, before_render)
        found = discussions_of(
            catalog, paper_id, texts or (), partial(self._citing_pdf, catalog, before_render)
        )
        with self._lock:
            self._discussed[key] = found
            while len(self._discussed) > KEPT_PAGES:
                self._discussed.popitem(last=False)
        return found

    def _texts_of(self, paper_id: str, before_render: Callable[[], None]) -> tuple[str, ...] | None:
        try:
            return self._pdf_pages.page_texts(self._pdf_of(paper_id), before_render)[1]
        except PdfUnavailable:
            return None

    def _citing_pdf(
        self, catalog: Catalog, before_render: Callable[[], None], paper_id: str
    ) -> CitingPdf | None:
        try:
            info, texts = self._pdf_pages.page_texts(paper_id, before_render)
        except PdfUnavailable:
            return None
        listed = self._list(
            catalog, paper_id, (paper_id, info.version, catalog.generation()), texts
        )
        return CitingPdf(texts, listed.references, listed.resolved)

    def _list(
        self, catalog: Catalog, paper_id: str, key: tuple[str, str, int], texts: tuple[str, ...]
    ) -> _PaperList:
        with self._lock:
            kept = self._lists.get(key)
        if kept is not None:
            return kept
        stored = catalog.references_of(paper_id)
        listed = _PaperList(
            ReferenceList([s.reference for s in stored], texts),
            tuple(s.resolved_id for s in stored),
            PaperTerms.read(texts),
            skim(texts),
        )
        with self._lock:
            self._lists[key] = listed
            while len(self._lists) > KEPT_PAPERS:
                self._lists.popitem(last=False)
        return listed


def _box(box: Box) -> MarkBox:
    return MarkBox.model_validate(box.as_json())


def _cited(catalog: Catalog, entry: Entry, listed: _PaperList) -> CitedReference:
    resolved = None if entry.position is None else listed.resolved[entry.position]
    paper = catalog.get_paper(resolved) if resolved else None
    reference = entry.reference
    return CitedReference(
        number=entry.number,
        printed=entry.printed,
        title=reference.title,
        authors=reference.authors,
        year=reference.year,
        paper=None if paper is None else library_paper(paper),
    )


def library_paper(paper: Paper) -> LibraryPaper:
    """What a card shows of a library's paper."""
    year = paper.published[:4]
    return LibraryPaper(
        id=paper.id,
        title=readable_tex(paper.title),
        authors=paper.authors,
        year=int(year) if year.isdigit() else None,
        summary=summary(paper.abstract),
        url=f"/papers/{paper.id}",
        reader_url=f"/papers/{paper.id}#reader",
    )


def summary(abstract: str) -> str:
    """The first sentence of an abstract, cut to a few hundred characters."""
    sentences = split_sentences(readable_tex(abstract)) if abstract.strip() else []
    first = " ".join(sentences[0].split()) if sentences else ""
    if len(first) <= _MAX_SUMMARY_CHARS:
        return first
    return first[: _MAX_SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "\u2026"
