"""Institutions as the paper site and the API show them: their papers, the researchers on
those papers, their parent and units, and which papers each is known from.

Institutions are read from affiliations (`ingest/index/institutions.py`): page
1 of a paper's PDF, or the parentheses after a name in its record. The
researchers listed are the authors of those papers; which author is at which
institution is not read, so the page says so.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from chat.library.researchers import slug
from ingest.errors import PaperchatError
from ingest.index import institutions as index
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.researchers import person_id

MAX_RESEARCHERS = 50  # the most researchers an institution lists, most papers first
MAX_LISTED = 1000  # the most institutions the list page shows


class InstitutionNotFound(PaperchatError, LookupError):
    """No institution with that id in the index."""


@dataclass(frozen=True)
class Listed:
    id: str
    name: str
    papers: int

    @property
    def path(self) -> str:
        return f"/institutions/{self.id}-{slug(self.name)}"


@dataclass(frozen=True)
class Member:
    id: str
    name: str
    papers: int  # of the institution's papers, how many list them

    @property
    def path(self) -> str:
        return f"/researchers/{self.id}-{slug(self.name)}"


@dataclass(frozen=True)
class Institution:
    id: str
    name: str
    parent: Listed | None
    units: tuple[Listed, ...]
    papers: tuple[tuple[Paper, str], ...]  # (paper, "pdf" or "record"), newest first
    researchers: tuple[Member, ...]

    @property
    def path(self) -> str:
        return f"/institutions/{self.id}-{slug(self.name)}"


def institution_path(institution_id: str, name: str) -> str:
    return f"/institutions/{institution_id}-{slug(name)}"


def find_institutions(catalog: Catalog, name: str = "") -> list[Listed]:
    """The institutions with papers whose name holds `name`, most papers first."""
    found = index.listed_institutions(catalog.db, name.strip(), MAX_LISTED)
    return [Listed(i, n, c) for i, n, c in found]


def institution(catalog: Catalog, institution_id: str) -> Institution:
    row = index.find_institution(catalog.db, institution_id)
    if row is None:
        raise InstitutionNotFound(f"no institution {institution_id!r} in the index")
    iid, name, parent_id = row
    parent = index.find_institution(catalog.db, parent_id) if parent_id else None
    found = [
        (paper, source)
        for paper_id, source in index.institution_papers(catalog.db, iid)
        if (paper := catalog.get_paper(paper_id)) is not None
    ]
    found.sort(key=lambda item: (item[0].published or item[0].updated, item[0].id), reverse=True)
    return Institution(
        id=iid,
        name=name,
        parent=Listed(parent[0], parent[1], 0) if parent else None,
        units=tuple(Listed(i, n, 0) for i, n in index.units_of(catalog.db, iid)),
        papers=tuple(found),
        researchers=_researchers(catalog, [p for p, _ in found]),
    )


def _researchers(catalog: Catalog, papers: list[Paper]) -> tuple[Member, ...]:
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    for byline in catalog.bylines([p.id for p in papers]).values():
        ids = set()
        for written, _, _ in byline:
            person = catalog.person(written)
            if person is not None and person.names:
                ids.add(rid := person_id(person))
                names.setdefault(rid, person.display)
        counts.update(ids)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], names[item[0]]))
    return tuple(Member(rid, names[rid], n) for rid, n in ranked[:MAX_RESEARCHERS])
