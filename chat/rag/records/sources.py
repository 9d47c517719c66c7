"""A paper's record as a source: its fields stated in sentences, citable as the paper."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chat.rag.records.questions import (
    AUTHORS,
    CATEGORY,
    DATE,
    PAPERS_BY,
    VENUE,
    VERSION,
    RecordQuestion,
)
from chat.rag.sources import Source
from ingest.index.records import Paper, arxiv_url

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog

KIND = "record"
MAX_PAPERS = 10  # an author's papers listed at most
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip
_VENUE_RE = re.compile(
    r"\b(?:accepted|to appear|published|presented|appear(?:s|ed)?)\b[^.;]*?\b(?:at|in|to|by)\b"
    r"|\b[A-Z][A-Za-z]*\s?'?\d{2,4}\b|\b(?:conference|proceedings|journal|workshop)\b",
    re.IGNORECASE,
)
_NO_VENUE = "The catalog records no venue for it."


def readable_date(iso: str) -> str:
    """ "December 2021" for "2021-12", "7 December 2021" for "2021-12-07"; "" when unreadable."""
    match = re.match(r"^(\d{4})-(\d{2})(?:-(\d{2}))?", iso.strip())
    if match is None or not 1 <= int(match[2]) <= 12:
        return ""
    month = f"{MONTHS[int(match[2]) - 1]} {match[1]}"
    return f"{int(match[3])} {month}" if match[3] else month


def record_text(paper: Paper) -> str:
    """The record's fields in sentences: authors, dates, version, categories, venue."""
    sentences = [f"{paper.title} (arXiv:{paper.id}) is by {_authors(paper)}."]
    first, last = readable_date(paper.published), readable_date(paper.updated)
    if first:
        later = f"; last updated {last}" if last and last != first else ""
        on = "on" if first[0].isdigit() else "in"
        sentences.append(f"It was first submitted {on} {first}{later}.")
    elif last:
        sentences.append(f"Its record was last updated {last}.")
    if paper.version:
        sentences.append(f"Its latest version is {paper.version}.")
    if paper.categories:
        sentences.append(f"Categories: {', '.join(paper.categories)}.")
    sentences.append(_venue(paper))
    if paper.comments:
        sentences.append(f"Comments: {paper.comments.strip().rstrip('.')}.")
    return " ".join(sentences)


def _authors(paper: Paper) -> str:
    return " ".join(paper.authors.split()) or "authors the catalog does not record"


def _venue(paper: Paper) -> str:
    journal = getattr(paper, "journal_ref", "")
    doi = getattr(paper, "doi", "")
    if journal:
        tail = f" (DOI {doi})" if doi else ""
        return f"Journal reference: {journal.strip().rstrip('.')}{tail}."
    if paper.comments and _VENUE_RE.search(paper.comments):
        return f"Venue, as its comments say: {paper.comments.strip().rstrip('.')}."
    return _NO_VENUE


def record_sources(asked: RecordQuestion, catalog: Catalog) -> list[Source]:
    """One record source per paper asked about (an author's papers newest first, at most
    `MAX_PAPERS`), numbered from 1."""
    papers = [p for i in asked.paper_ids if (p := catalog.get_paper(i)) is not None]
    if asked.field == PAPERS_BY:
        texts = [listed_text(p) for p in papers[:MAX_PAPERS]]
        papers = papers[:MAX_PAPERS]
    elif asked.unowned is not None:
        papers = papers[:1]
        texts = [f"{asked.unowned.statement()} The earliest here: {listed_text(p)}" for p in papers]
    else:
        texts = [record_text(p) for p in papers]
    return [
        paper_source(n, paper, text)
        for n, (paper, text) in enumerate(zip(papers, texts, strict=True), 1)
    ]


def listed_text(paper: Paper) -> str:
    """The paper as a list of papers states it: title, id, authors, first submission."""
    when = readable_date(paper.published) or readable_date(paper.updated)
    on = "on" if when[:1].isdigit() else "in"
    dated = f", first submitted {on} {when}" if readable_date(paper.published) else ""
    if not dated and when:
        dated = f", its record updated {when}"
    return f"{paper.title} (arXiv:{paper.id}) is by {_authors(paper)}{dated}."


def paper_source(n: int, paper: Paper, text: str) -> Source:
    """A record source numbered `n`: `text` about `paper`, citable as the paper."""
    return Source(
        n=n,
        id=paper.id,
        is_arxiv=paper.is_arxiv,
        title=paper.title,
        chunk_id=f"{paper.id}#record",
        kind=KIND,
        section="Record",
        page=None,
        text=text,
        score=1.0,
        url=arxiv_url(paper.id) if paper.is_arxiv else "",
    )


FIELD_OPENINGS = {
    AUTHORS: (" is by ",),
    DATE: ("It was first submitted", "Its record was last updated"),
    VENUE: ("Journal reference:", "Venue, as its comments say:", _NO_VENUE),
    CATEGORY: ("Categories:",),
    VERSION: ("Its latest version",),
}
