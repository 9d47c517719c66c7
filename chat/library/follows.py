"""What a user can follow, and which papers are new to a follow.

A researcher is followed by id or by name, matched as the researcher pages
match it (`chat/library/researchers.py`); a category by its arXiv name (`cs.CL`); a saved
search by its words, every one of which a paper's title or abstract must hold;
a paper by its id, for its new versions. Each must be in the index when it is
followed, as its page is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from chat.library.authors import AuthorNotFound, find_author
from chat.library.categories import arxiv_categories, indexed_category
from chat.library.papers import PaperNotFound
from chat.library.researchers import ResearcherNotFound, person_by_id
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.names.people import Person
from ingest.index.records import Paper, normalise_paper_id

KINDS = ("researcher", "category", "search", "paper")
# What one user may follow by default (PAPERCHAT_MAX_FOLLOWS, PAPERCHAT_MAX_CATEGORY_FOLLOWS):
# each follow is compared with every new paper, and each followed category is one more
# query to arXiv's API (3 s apart) in every harvest.
MAX_FOLLOWS: Final = 200
MAX_CATEGORY_FOLLOWS: Final = 20


class InvalidFollow(PaperchatError, ValueError):
    """A follow's value that cannot stand for its kind: a blank search, a malformed category."""


@dataclass(frozen=True)
class Target:
    """A follow as it is kept: its value in one spelling, and a followed paper's version."""

    kind: str
    value: str
    version: str = ""


def search_words(value: str) -> tuple[str, ...]:
    """A saved search's words, lower case, each once, in order."""
    return tuple(dict.fromkeys(value.lower().split()))


def followed_person(catalog: Catalog, value: str) -> Person:
    """The researcher `value` names: a researcher id (`/researchers/<id>-...`), else an author
    name; AuthorNotFound when it is neither."""
    try:
        return person_by_id(catalog, value)
    except ResearcherNotFound:
        return find_author(catalog, value)


def follow_target(catalog: Catalog, kind: str, value: str) -> Target:
    """What following `value` as `kind` means; InvalidFollow when it cannot stand for its
    kind (a category must be one of arXiv's), AuthorNotFound, CategoryNotFound or
    PaperNotFound when the index has none."""
    text = " ".join(value.split())
    if not text:
        raise InvalidFollow(f"a {kind} to follow cannot be blank")
    if kind == "category":
        if text not in arxiv_categories():
            raise InvalidFollow(f"{text!r} is not an arXiv category such as cs.CL or hep-th")
        indexed_category(catalog, text)
        return Target(kind, text)
    if kind == "researcher":
        followed_person(catalog, text)
        return Target(kind, text)
    if kind == "paper":
        paper = catalog.get_paper(normalise_paper_id(text))
        if paper is None:
            raise PaperNotFound(f"no paper {text!r} in the index")
        return Target(kind, paper.id, paper.version)
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidFollow(f"a saved search holds at most {MAX_QUERY_CHARS} characters")
    return Target(kind, text)


class Matcher:
    """Which new papers each follow takes, reading the catalog once per researcher."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._researchers: dict[str, set[str]] = {}

    def takes(self, kind: str, value: str, paper: Paper) -> bool:
        if kind == "category":
            return value in paper.categories
        if kind == "researcher":
            return paper.id in self._papers_of(value)
        if kind == "search":
            text = f"{paper.title} {paper.abstract}".lower()
            return all(word in text for word in search_words(value))
        return False  # a paper follow takes new versions, not new papers

    def _papers_of(self, name: str) -> set[str]:
        if name not in self._researchers:
            try:
                person = followed_person(self.catalog, name)
            except AuthorNotFound:
                self._researchers[name] = set()
            else:
                self._researchers[name] = set(self.catalog.paper_ids_of(person))
        return self._researchers[name]
