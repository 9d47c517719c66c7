"""What the library says about a paper: the sentences of other papers' PDFs that cite it,
each placed beside the page of the paper whose words it shares most.

A citing sentence is the sentence of a citing PDF's page that holds a citation mark naming
the paper (`ingest.references.marks`, named through the citing paper's reference list by
`ingest.references.linking`). It is placed on the cited paper's page whose text shares
most of its terms, `MIN_SHARED_TERMS` at least, counting only terms that are not on most
of the paper's pages (its own name, "model", "results"); a sentence sharing too little
with any page is listed for the paper as a whole only. Newest citing paper first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from pydantic import BaseModel

from ingest.index.catalog import Catalog
from ingest.index.lexical.analysis import terms
from ingest.index.records import Paper
from ingest.index.tex import readable_tex
from ingest.references.linking import ReferenceList

# The citing papers read for one paper, newest first, and the sentences kept of each.
MAX_CITING_PAPERS: Final = 20
MAX_SENTENCES_EACH: Final = 5
MAX_SENTENCE_CHARS: Final = 600
# The share of a sentence's tokens that must be words for it to be a sentence at all.
_PROSE_SHARE: Final = 0.6
# Terms a citing sentence must share with a page to be placed beside it.
MIN_SHARED_TERMS: Final = 3
# A term on more than this share of the paper's pages tells no page apart.
_COMMON_SHARE: Final = 0.5

# Where a sentence ends: after . ! or ? and space, before a capital, a bracket or a digit;
# not after the abbreviations citations and figures use ("et al.", "e.g.", "Fig.").
_SENTENCE_END: Final = re.compile(
    r"(?<![Aa]l\.)(?<!e\.g\.)(?<!i\.e\.)(?<!Fig\.)(?<!Eq\.)(?<!Sec\.)(?<!vs\.)"
    r"(?<=[.!?])\s+(?=[A-Z\[(0-9])"
)
# (paper id) -> its page texts and stored reference list with each entry's library paper.
ReadPaper = Callable[[str], "CitingPdf | None"]


@dataclass(frozen=True)
class CitingPdf:
    """A citing paper's PDF as the annotations read it."""

    texts: tuple[str, ...]
    references: ReferenceList
    resolved: tuple[str | None, ...]  # the library's paper of each stored reference


class Discussion(BaseModel):
    """A sentence of another paper of the library that cites this one."""

    paper_id: str  # the citing paper
    title: str
    published: str
    page: int  # of the citing paper's PDF
    sentence: str
    reader_url: str  # the citing paper's reader at that page
    placed_on: int | None  # the cited paper's page it speaks of; None: the paper as a whole


def discussions_of(
    catalog: Catalog, paper_id: str, page_texts: Sequence[str], read: ReadPaper
) -> list[Discussion]:
    """The sentences of the library's PDFs citing `paper_id`, newest citing paper first,
    each placed on a page of `page_texts` (the cited paper's, empty without its PDF)."""
    citing = sorted(
        (p for p in catalog.citing_papers(paper_id) if p.id != paper_id),
        key=lambda p: p.published or p.updated,
        reverse=True,
    )[:MAX_CITING_PAPERS]
    placer = _Placer(page_texts)
    found: list[Discussion] = []
    for paper in citing:
        pdf = read(paper.id)
        if pdf is None:
            continue
        for page, sentence in citing_sentences(pdf, paper_id)[:MAX_SENTENCES_EACH]:
            found.append(_discussion(paper, page, sentence, placer.place(sentence)))
    return found


def citing_sentences(pdf: CitingPdf, cited_id: str) -> list[tuple[int, str]]:
    """(page, sentence) of each sentence of `pdf` holding a mark that names `cited_id`, in
    the order printed, each sentence once."""
    found: list[tuple[int, str]] = []
    for number, text in enumerate(pdf.texts, start=1):
        starts = [
            mark.start
            for mark, entries in pdf.references.page_marks(number, text)
            if any(_names(pdf, entry.position, cited_id) for entry in entries)
        ]
        for sentence in dict.fromkeys(sentence_at(text, start) for start in starts):
            if sentence:
                found.append((number, sentence))
    return found


def _names(pdf: CitingPdf, position: int | None, cited_id: str) -> bool:
    return position is not None and pdf.resolved[position] == cited_id


def sentence_at(text: str, offset: int) -> str:
    """The sentence of a page's `text` that holds character `offset`, white space made
    single; "" for one longer than `MAX_SENTENCE_CHARS` (a table, a run of references)."""
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text))]
    start = max(at for at in starts if at <= offset)
    end = next((at for at in starts if at > offset), len(text))
    # PDFium marks a word broken at a line's end with U+FFFE: the word is whole again.
    shown = " ".join(text[start:end].replace("\ufffe", "").split())
    return shown if len(shown) <= MAX_SENTENCE_CHARS and _is_prose(shown) else ""


def _is_prose(sentence: str) -> bool:
    """Whether most of `sentence`'s words are words: a table's row is mostly numbers."""
    tokens = sentence.split()
    return sum(token.strip(".,;:()[]").isalpha() for token in tokens) >= _PROSE_SHARE * len(tokens)


class _Placer:
    """Which page of a paper a sentence about it shares most terms with."""

    def __init__(self, page_texts: Sequence[str]) -> None:
        self._pages = [set(terms(text)) for text in page_texts]
        on_pages = Counter(term for page in self._pages for term in page)
        most = _COMMON_SHARE * len(self._pages)
        self._common = {term for term, count in on_pages.items() if count > most}

    def place(self, sentence: str) -> int | None:
        wanted = set(terms(sentence)) - self._common
        shared = [len(wanted & page) for page in self._pages]
        best = max(shared, default=0)
        return shared.index(best) + 1 if best >= MIN_SHARED_TERMS else None


def _discussion(paper: Paper, page: int, sentence: str, placed_on: int | None) -> Discussion:
    return Discussion(
        paper_id=paper.id,
        title=readable_tex(paper.title),
        published=paper.published or paper.updated,
        page=page,
        sentence=sentence,
        reader_url=f"/papers/{paper.id}#reader",
        placed_on=placed_on,
    )
