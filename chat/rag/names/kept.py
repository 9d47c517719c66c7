"""What name recognition reads, kept between questions: each question's names, and what it
reads of the papers that introduce a name.

A name's introducers are read question after question ("RAG" has dozens): their dates,
to read the first one first, and the terms of their title and abstract, to put first the
one the question describes. Both are kept for `KEPT_PAPERS` papers at most, the least
recently read leaving first, while the catalog's generation stays the same; a paper's
terms are read only once a question needs them. The last `KEPT_QUESTIONS` questions'
names are kept the same way.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ingest.index.catalog import Catalog
from ingest.index.lexical.analysis import terms

KEPT_PAPERS = 4_096
KEPT_QUESTIONS = 256
T = TypeVar("T")


@dataclass(frozen=True)
class KeptPaper:
    published: str  # "" when not known
    words: frozenset[str]  # the terms of its title and abstract; empty until asked for


class KeptPapers:
    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._kept: OrderedDict[str, KeptPaper] = OrderedDict()
        self._kept_at: int | None = None
        self._worded: set[str] = set()
        self._lock = threading.Lock()

    def read(self, paper_ids: Sequence[str], *, with_words: bool) -> dict[str, KeptPaper]:
        """The papers of `paper_ids` the catalog holds, with their terms when `with_words`."""
        generation = self._catalog.generation()
        wanted = list(dict.fromkeys(paper_ids))
        with self._lock:
            if self._kept_at != generation:
                self._kept.clear()
                self._worded.clear()
                self._kept_at = generation
            found = {p: self._kept[p] for p in wanted if p in self._kept}
            for p in found:
                self._kept.move_to_end(p)
        missing = [p for p in wanted if p not in found or (with_words and p not in self._worded)]
        if not missing:
            return found
        read = {paper.id: paper for paper in self._catalog.papers_among(missing)}
        fresh = {
            p: KeptPaper(
                paper.published or "",
                frozenset(sys.intern(t) for t in terms(f"{paper.title} {paper.abstract}"))
                if with_words
                else frozenset(),
            )
            for p, paper in read.items()
        }
        with self._lock:
            if self._kept_at == generation:
                for p, kept in fresh.items():
                    self._kept[p] = kept
                    self._kept.move_to_end(p)
                    if with_words:
                        self._worded.add(p)
                while len(self._kept) > KEPT_PAPERS:
                    gone, _ = self._kept.popitem(last=False)
                    self._worded.discard(gone)
        return {**found, **fresh}


class KeptAnswers(Generic[T]):
    """What a function of the catalog answers for the last `KEPT_QUESTIONS` questions."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._kept: OrderedDict[str, T] = OrderedDict()
        self._kept_at: int | None = None
        self._lock = threading.Lock()

    def get(self, question: str, answer: Callable[[str], T]) -> T:
        generation = self._catalog.generation()
        with self._lock:
            if self._kept_at != generation:
                self._kept.clear()
                self._kept_at = generation
            if question in self._kept:
                self._kept.move_to_end(question)
                return self._kept[question]
        found = answer(question)
        with self._lock:
            if self._kept_at == generation:
                self._kept[question] = found
                while len(self._kept) > KEPT_QUESTIONS:
                    self._kept.popitem(last=False)
        return found
