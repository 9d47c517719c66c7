"""A page's defined terms as the annotations answer them: each term the paper defines and
uses on the page, its definition with where it is printed, and each use with its boxes.

The terms are read once a paper from its pages' text (`ingest.references.terms`); the
boxes of a definition, once a paper, when a page first shows a use of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from chat.service.web.papers.pdfpages import Pdf, PdfPages
from ingest.index.records import Box
from ingest.references.terms import Term, defined_terms, term_uses


class TermBox(BaseModel):
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class TermUse(BaseModel):
    """A term printed on the page: its text and a box a line it spans."""

    text: str
    boxes: list[TermBox]


class DefinedTerm(BaseModel):
    """A term the paper defines, used on the page: its name, its definition as printed (an
    acronym's long form, what a symbol is), its form ("acronym" or "symbol"), the page and
    boxes of its definition, and its uses on the page."""

    term: str
    definition: str
    kind: str
    page: int
    boxes: list[TermBox]
    uses: list[TermUse]


@dataclass
class PaperTerms:
    """A paper's terms and the boxes of the definitions read so far."""

    terms: tuple[Term, ...]
    boxes: dict[str, list[TermBox]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def read(cls, texts: Sequence[str]) -> PaperTerms:
        return cls(defined_terms(texts))


def page_uses(terms: PaperTerms, page: int, text: str) -> list[tuple[Term, int, int]]:
    """The uses of the paper's terms on page `page`, whose text is `text`."""
    return term_uses(terms.terms, page, text)


def defined_on_page(
    terms: PaperTerms,
    uses: Sequence[tuple[Term, int, int]],
    use_boxes: Sequence[list[Box]],
    text: str,
    definition_boxes: Callable[[int, list[Term]], list[list[Box]]],
) -> list[DefinedTerm]:
    """The page's terms in the order first used, each with its uses' boxes (`use_boxes`, one
    list a use) and its definition's (read by `definition_boxes(page, terms)` once)."""
    used: dict[str, DefinedTerm] = {}
    order: list[Term] = []
    for (term, start, end), found in zip(uses, use_boxes, strict=True):
        if term.name not in used:
            order.append(term)
            used[term.name] = DefinedTerm(
                term=term.name, definition=term.meaning, kind=term.kind, page=term.page,
                boxes=[], uses=[],
            )  # fmt: skip
        used[term.name].uses.append(TermUse(text=text[start:end], boxes=_boxes(found)))
    for name, defined in _definition_boxes(terms, order, definition_boxes).items():
        used[name].boxes = defined
    return list(used.values())


def _definition_boxes(
    terms: PaperTerms,
    wanted: list[Term],
    read: Callable[[int, list[Term]], list[list[Box]]],
) -> dict[str, list[TermBox]]:
    with terms.lock:
        missing = [term for term in wanted if term.name not in terms.boxes]
    by_page: dict[int, list[Term]] = {}
    for term in missing:
        by_page.setdefault(term.page, []).append(term)
    found = {
        term.name: _boxes(boxes)
        for page, listed in by_page.items()
        for term, boxes in zip(listed, read(page, listed), strict=True)
    }
    with terms.lock:
        terms.boxes.update(found)
        return {term.name: terms.boxes[term.name] for term in wanted}


def _boxes(boxes: list[Box]) -> list[TermBox]:
    return [TermBox.model_validate(box.as_json()) for box in boxes]


def definition_reader(
    pdf_pages: PdfPages, pdf: Pdf, before_render: Callable[[], None]
) -> Callable[[int, list[Term]], list[list[Box]]]:
    """Reads the boxes of terms' definitions printed on one page of the paper."""

    def read(page: int, terms: list[Term]) -> list[list[Box]]:
        ranges = [(term.start, term.end - term.start) for term in terms]
        boxes = pdf_pages.text_boxes(pdf, page, lambda _text: ranges, before_render)
        return boxes or [[] for _ in terms]

    return read
