"""The paper a question names by its authors and what it is about, as researchers name
papers: "Rahman et al.'s zero-shot object detection paper", "the distillation paper by
Hinton et al.", "Zhu and Saligrama's zero-shot detection work". A search over the library
finds every paper on that topic, by anyone; the byline tells which one is meant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from chat.rag.records.titles import titles_of
from ingest.index.lexical.analysis import terms
from ingest.index.names.people import byline_places, papers_by_surname

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog

# A surname as a question writes it: capitalised, perhaps after a particle ("van den Oord").
_SURNAME = r"(?:(?:van|von|de|der|den|da|di|du|le|la|del)\s+)*[A-Z][\w'\u2019-]*"
# One author, two ("Zhu and Saligrama") or a list ("Hinton, Vinyals and Dean": the first
# and the last are read), perhaps "et al.".
_AUTHORS = (
    rf"(?P<who>{_SURNAME})(?:(?:\s*,\s*{_SURNAME})*\s*,?\s+(?:and|&)\s+(?P<also>{_SURNAME}))?"
    r"(?P<others>\s+et\s+al\.?)?"
)
_POSSESSIVE = r"(?:'s|\u2019s|')"
# What a paper is called after its description: "paper", "work", "method", "models", ...
_KIND = (
    r"(?:papers?|articles?|works?|stud(?:y|ies)|preprints?|methods?|models?|approach(?:es)?"
    r"|frameworks?|networks?|systems?|architectures?|algorithms?|detectors?|retrievers?"
    r"|readers?|benchmarks?|datasets?|optimi[sz]ers?|techniques?)"
)
_WHAT = r"(?P<what>[^?,;:()]{3,120}?)"
_PATTERNS = (
    # "Rahman et al.'s zero-shot object detection paper", "Hinton's distillation paper"
    re.compile(rf"\b{_AUTHORS}{_POSSESSIVE}\s+{_WHAT}\s+{_KIND}\b"),
    # "the zero-shot detection paper by Zhu et al."
    re.compile(rf"\b{_WHAT}\s+{_KIND}\s+(?:by|of|from)\s+{_AUTHORS}"),
)
# "Zhu and Saligrama train their zero-shot detector": two names, or "et al.", doing
# something with "their" method.
_DOING = re.compile(rf"\b{_AUTHORS}\s+(?:[a-z]+\s+){{1,3}}?their\s+{_WHAT}\s+{_KIND}\b")
# "Hinton, Vinyals and Dean's paper": a byline of two or more names and no description.
_BYLINE_ALONE = re.compile(rf"\b{_AUTHORS}{_POSSESSIVE}\s+(?:\w+\s+)?{_KIND}\b")
# Title words a description must share with the paper's title: two, or all of a shorter one.
_SHARED_WORDS = 2
# How much more nearly the best title must be the description than the next (the share of
# its words the description holds), when both share as many words.
_CLEAR_LEAD = 0.2
_MOST_FITTING = 300
_MOST_PAPERS = 5_000


# The papers a description's names are the own names of ("RAG" in "Lewis et al.'s RAG
# models"): `NameRecogniser.recognise` read for them.
NamedPapers = Callable[[str], set[str]]


def authored_paper(
    question: str, catalog: Catalog, named_papers: NamedPapers | None = None
) -> str | None:
    """The paper the question names by a surname (two, when it names two) and words of its
    title, or a name of its own (`named_papers`: "Lewis et al.'s RAG models" is the RAG
    paper Lewis wrote, not a namesake); None when it names none so, or when two papers fit
    alike."""
    doing = [m for m in _DOING.finditer(question) if m["also"] or m["others"]]
    for match in [*(m for p in _PATTERNS for m in p.finditer(question)), *doing]:
        papers = papers_by_surname(catalog.db, match["who"], _MOST_PAPERS + 1)
        named = named_papers(match["what"]) if named_papers is not None else set()
        if len(by := papers & named) == 1:
            return next(iter(by))
        found = _paper_of(catalog, papers, match["who"], match["also"], match["what"])
        if found is not None:
            return found
    for match in (m for m in _BYLINE_ALONE.finditer(question) if m["also"]):
        papers = papers_by_surname(catalog.db, match["who"], _MOST_PAPERS + 1)
        if found := _paper_of(catalog, papers, match["who"], match["also"], ""):
            return found
    return None


def _paper_of(
    catalog: Catalog, papers: set[str], who: str, also: str | None, what: str
) -> str | None:
    """The paper of `who` (`papers`, theirs as the byline index gives them) and `also` that
    `what` describes: the one whose title shares the most of its words; or, given two
    surnames, the one paper of the library they share, however the question describes it
    ("Izacard and Grave's passage-fusing reader")."""
    if also:
        with_also = papers_by_surname(catalog.db, also, _MOST_PAPERS + 1)
        whole = max(len(papers), len(with_also)) <= _MOST_PAPERS  # neither list cut short
        papers = papers & with_also
        if whole and len(papers) == 1:
            return next(iter(papers))
    wanted = set(terms(what))  # stop words ("what does the") leave no term
    if not wanted:
        return None
    needed = min(_SHARED_WORDS, len(wanted))
    if len(papers) > _MOST_PAPERS:
        return None  # the commonest surnames: their byline narrows nothing
    # Most titles hold too few of the words: read as terms only those that may.
    titles = _titles(catalog, sorted(papers))
    maybe = [
        (p, title)
        for p, title in titles.items()
        if sum(w in title.lower() for w in wanted) >= needed
    ]
    if len(maybe) > _MOST_FITTING:
        return None  # a description that fits hundreds of a surname's papers names none
    shares: dict[str, tuple[int, float]] = {}
    for paper_id, title in maybe:
        title_terms = set(terms(title))
        shared = len(wanted & title_terms)
        if shared >= needed:
            shares[paper_id] = (shared, shared / len(title_terms))
    places = byline_places(catalog.db, list(shares), who)
    # More of the words; by a first author rather than a fifth; a title that is more nearly
    # the description ("Zero Shot Detection" itself).
    scored = {p: (-shared, places.get(p, 0), -near) for p, (shared, near) in shares.items()}
    if not scored:
        return None
    ranked = sorted(scored, key=scored.__getitem__)
    if len(ranked) > 1 and _alike(scored[ranked[0]], scored[ranked[1]]):
        return None  # "Wang et al.'s graph neural network paper": many fit; none is meant
    return ranked[0]


def _alike(best: tuple[int, int, float], next_best: tuple[int, int, float]) -> bool:
    """Whether the two best papers fit the description alike: as many of its words, both by
    a first author or neither, and titles near as much the description."""
    same_words = best[0] == next_best[0]
    same_place = (best[1] == 0) == (next_best[1] == 0)
    return same_words and same_place and next_best[2] - best[2] < _CLEAR_LEAD


def _titles(catalog: Catalog, paper_ids: list[str]) -> dict[str, str]:
    """The titles of `paper_ids`: from the titles kept in memory, else read."""
    kept = titles_of(catalog)
    if kept is not None:
        return {p: title for p in paper_ids if (title := kept.title_of(p)) is not None}
    found: dict[str, str] = {}
    for start in range(0, len(paper_ids), 500):
        part = paper_ids[start : start + 500]
        query = f"SELECT id, title FROM papers WHERE id IN ({','.join('?' * len(part))})"
        found.update((str(pid), str(title or "")) for pid, title in catalog.db.execute(query, part))
    return found
