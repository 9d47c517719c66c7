"""Researchers as the paper site and the API show them: a stable id, papers with the
researcher's place in each byline, counts, dates and co-authors.

Researchers are authors matched by name (`chat/library/authors.py`); their ids
come from the catalog (`ingest/index/names/researchers.py`). A name that several
indexed people could have is a chooser, not a page.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from chat.library.authors import AuthorNotFound, find_author
from chat.library.categories import CATEGORY_RE
from ingest.index.catalog import Catalog
from ingest.index.names.people import Person, parse_name
from ingest.index.names.researchers import ID_RE, person_id
from ingest.index.records import Paper

_SLUG_RE = re.compile(r"[^a-z0-9]+")
MAX_COAUTHORS = 50  # the most co-authors a profile lists, most shared papers first
# The co-authors' names looked up, at most: those on most of the researcher's papers.
MAX_COAUTHOR_NAMES = 120
RESEARCHER_PAGE_PAPERS = 100  # the papers a page of a researcher's profile lists
MAX_RESEARCHER_PAGES = 1_000  # the last page a profile's address may ask for
Place = Literal["first", "middle", "last"]  # in a byline; a sole author is "first"


class ResearcherNotFound(AuthorNotFound):
    """No indexed researcher has that id (several people may have its name: `suggestions`)."""

    def __init__(self, researcher_id: str, suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(researcher_id, suggestions)
        self.args = (f"no researcher {researcher_id!r} in the index",)


@dataclass(frozen=True)
class Coauthor:
    id: str
    name: str
    shared: int  # papers in the index both are authors of

    @property
    def path(self) -> str:
        """Their page's path, as `researcher_path` makes it (the name is their display)."""
        return f"/researchers/{self.id}-{slug(self.name)}"


@dataclass(frozen=True)
class Authored:
    paper: Paper
    position: Place


@dataclass(frozen=True)
class Researcher:
    id: str
    name: str  # the spelling shown: with a full first name, on the most papers
    slug: str
    spellings: tuple[str, ...]  # every indexed spelling taken to be this researcher
    papers: tuple[Authored, ...]  # newest first
    categories: tuple[tuple[str, int], ...]  # (category, papers), most first
    years: tuple[tuple[str, int], ...]  # (year, papers), newest first
    coauthors: tuple[Coauthor, ...]  # most shared papers first
    # Spellings that may be this researcher but also someone else with the same initial.
    maybe: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"/researchers/{self.id}-{self.slug}"

    @property
    def pages(self) -> int:
        """The pages of `RESEARCHER_PAGE_PAPERS` papers the profile lists (at least one)."""
        return max(1, -(-len(self.papers) // RESEARCHER_PAGE_PAPERS))

    def papers_on(self, page: int) -> tuple[Authored, ...]:
        """Page `page`'s papers, newest first (none past the last page)."""
        start = (page - 1) * RESEARCHER_PAGE_PAPERS
        return self.papers[start : start + RESEARCHER_PAGE_PAPERS]

    @property
    def first_published(self) -> str:
        return min((_date(a.paper) for a in self.papers if _date(a.paper)), default="")

    @property
    def latest_published(self) -> str:
        return max((_date(a.paper) for a in self.papers if _date(a.paper)), default="")


def slug(name: str) -> str:
    """The name as a URL's readable part: "Jean-Pierre Müller" -> "jean-pierre-muller"."""
    key = parse_name(name)
    folded = " ".join((*key.given, key.surname)) if key else name.casefold()
    return _SLUG_RE.sub("-", folded).strip("-") or "researcher"


def person_by_id(catalog: Catalog, researcher_id: str) -> Person:
    """The indexed person whose id, or one of whose names' ids, is `researcher_id`."""
    key = catalog.researcher_key(researcher_id) if ID_RE.match(researcher_id) else None
    if key is None:
        raise ResearcherNotFound(researcher_id)
    try:
        return find_author(catalog, key)
    except AuthorNotFound as e:
        raise ResearcherNotFound(researcher_id, e.suggestions) from e


def researcher_path(person: Person) -> str:
    """The researcher's page: `/researchers/<id>-<name>`."""
    return f"/researchers/{person_id(person)}-{slug(person.display)}"


def researcher(catalog: Catalog, person: Person) -> Researcher:
    papers = catalog.papers_of(person)
    bylines = catalog.bylines([p.id for p in papers])
    keys = _keys(person)
    authored = [Authored(paper, _position(bylines.get(paper.id, []), keys)) for paper in papers]
    categories = Counter(c for p in papers for c in p.categories if CATEGORY_RE.match(c))
    years = Counter(_date(p)[:4] for p in papers if _date(p))
    return Researcher(
        id=person_id(person),
        name=person.display,
        slug=slug(person.display),
        spellings=tuple(sorted({n.written for n in person.names})),
        papers=tuple(authored),
        categories=tuple(sorted(categories.items(), key=lambda item: (-item[1], item[0]))),
        years=tuple(sorted(years.items(), reverse=True)),
        coauthors=coauthors(catalog, person, bylines),
        maybe=tuple(sorted({n.written for n in person.ambiguous})),
    )


def _date(paper: Paper) -> str:
    return paper.published or paper.updated


Key = tuple[str, str]  # an author name's given names and surname, as the author index keys it


def _keys(person: Person) -> set[Key]:
    return {(" ".join(n.given), n.surname) for n in person.names}


def _position(byline: Sequence[tuple[str, str, str]], keys: set[Key]) -> Place:
    at = next((i for i, (_, g, s) in enumerate(byline) if (g, s) in keys), 0)
    if at == 0:
        return "first"
    return "last" if at == len(byline) - 1 else "middle"


def coauthors(
    catalog: Catalog, person: Person, bylines: Mapping[str, Sequence[tuple[str, str, str]]]
) -> tuple[Coauthor, ...]:
    """The people the researcher wrote with (`bylines`: their papers' authors, by paper),
    each with the number of shared papers: names that stand for one person (an initial for
    a full first name) counted once per paper. Only the `MAX_COAUTHOR_NAMES` names on most
    of the papers are looked up, all at once: a paper with thousands of authors costs no
    more than that."""
    keys = _keys(person)
    written: dict[Key, str] = {}
    papers_of: list[set[Key]] = []
    for byline in bylines.values():
        others = {(g, s) for w, g, s in byline if (g, s) not in keys}
        for w, g, s in byline:
            written.setdefault((g, s), w)
        papers_of.append(others)
    on_papers = Counter(key for others in papers_of for key in others)
    looked_up = sorted(on_papers, key=lambda key: (-on_papers[key], key))[:MAX_COAUTHOR_NAMES]
    found = catalog.people(written[key] for key in looked_up)
    people: dict[Key, str] = {}  # a name's key -> its researcher id
    names: dict[str, str] = {}
    for key in looked_up:
        other = found.get(written[key])
        if other is not None and other.names:
            people[key] = person_id(other)
            names.setdefault(people[key], other.display)
    shared = Counter(rid for others in papers_of for rid in {people.get(k) for k in others} if rid)
    ranked = sorted(shared.items(), key=lambda item: (-item[1], names[item[0]]))
    return tuple(Coauthor(rid, names[rid], n) for rid, n in ranked[:MAX_COAUTHORS])


def search_researchers(catalog: Catalog, name: str) -> list[dict[str, object]]:
    """The researchers a name may stand for: the one it matches, else every person who
    could be meant."""
    person = catalog.person(name)
    if person is None:
        return []
    if person.names:
        found = [person]
    else:
        found = [p for n in person.ambiguous if (p := catalog.person(n.written)) and p.names]
    results: dict[str, dict[str, object]] = {}
    for each in found:
        rid = person_id(each)
        results.setdefault(
            rid,
            {
                "id": rid,
                "name": each.display,
                "path": researcher_path(each),
                "papers": len(catalog.paper_ids_of(each)),
            },
        )
    return list(results.values())
