"""Authors as the paper site and the API show them: one author's papers, and the author filter.

Names are matched through the catalog's author index (`ingest/index/names/people.py`):
without case or accents, and an initial for a full first name when only one
indexed person has that surname and initial.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from chat.library.categories import CATEGORY_RE
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.names.people import MAX_NAME_CHARS, Person
from ingest.index.records import Paper, arxiv_url

MAX_AUTHOR_CHARS = MAX_NAME_CHARS


class AuthorNotFound(PaperchatError, LookupError):
    """No indexed author goes by that name (maybe several could: `suggestions`)."""

    def __init__(self, name: str, suggestions: tuple[str, ...] = ()) -> None:
        message = f"no author {name!r} in the index"
        if suggestions:
            message += f"; authors with that name: {', '.join(suggestions)}"
        super().__init__(message)
        self.name = name
        self.suggestions = suggestions


def find_author(catalog: Catalog, name: str) -> Person:
    """The indexed person `name` stands for, else AuthorNotFound."""
    person = catalog.person(name)
    if person is None or not person.names:
        others = tuple(n.written for n in person.ambiguous) if person else ()
        raise AuthorNotFound(" ".join(name.split()), others[:20])
    return person


def author_filter(catalog: Catalog, filters: Filters) -> Filters:
    """`filters` with its author turned into the ids of the author's papers (maybe none of
    those asked for); AuthorNotFound when no indexed author is theirs."""
    if not filters.author:
        return filters
    return filters.within(catalog.paper_ids_of(find_author(catalog, filters.author)))


@dataclass(frozen=True)
class AuthorPage:
    name: str  # the spelling shown: with a full first name, on the most papers
    asked: str
    spellings: tuple[str, ...]  # every indexed spelling taken to be this author
    papers: tuple[Paper, ...]  # newest first
    categories: tuple[tuple[str, int], ...]  # (category, papers), most first
    years: tuple[tuple[str, int], ...]  # (year, papers), newest first
    # Spellings that may be this author but also another one with the same initial.
    maybe: tuple[str, ...]


def author_page(catalog: Catalog, name: str) -> AuthorPage:
    person = find_author(catalog, name)
    papers = catalog.papers_of(person)
    categories = Counter(c for p in papers for c in p.categories if CATEGORY_RE.match(c))
    years = Counter((p.published or p.updated)[:4] for p in papers if p.published or p.updated)
    return AuthorPage(
        name=person.display,
        asked=" ".join(name.split()),
        spellings=tuple(sorted({n.written for n in person.names})),
        papers=tuple(papers),
        categories=tuple(sorted(categories.items(), key=lambda item: (-item[1], item[0]))),
        years=tuple(sorted(years.items(), reverse=True)),
        maybe=tuple(sorted({n.written for n in person.ambiguous})),
    )


def paper_summary(paper: Paper) -> dict[str, object]:
    """One paper as an author's list shows it."""
    return {
        "id": paper.id,
        "title": paper.title,
        "authors": paper.authors,
        "categories": list(paper.categories),
        "published": paper.published or paper.updated or None,
        "url": arxiv_url(paper.id) if paper.is_arxiv else None,
    }
