"""Institutions as the paper site and the API show them: their papers, the researchers on
those papers, their parent and units, and which papers each is known from.

Institutions are read from affiliations (`ingest/index/names/institutions.py`): page
1 of a paper's PDF, or the parentheses after a name in its record. Its
researchers are the authors of those papers: those page 1 puts at it, by its
marks or its author blocks (`ingest/pdf/front/placements.py`, read at ingest
and kept in the catalog), apart from the others, of whom the page says
nothing or names another institution.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from chat.library.researchers import slug
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.names import institutions as index
from ingest.index.names.researchers import person_id
from ingest.index.records import Paper

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
    members: tuple[Member, ...]  # put at it by page 1 of its papers
    researchers: tuple[Member, ...]  # the other authors of its papers
    placed: int  # of its papers, how many say on page 1 who is where (as ingest read it)
    ror: str  # its ROR id ("00njsd438") where a record gives one, else ""

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
    """The institution's page: its researchers split into those page 1 of its papers puts
    at it (as ingest read it) and the others."""
    row = index.find_institution(catalog.db, institution_id)
    if row is None:
        raise InstitutionNotFound(f"no institution {institution_id!r} in the index")
    iid, name, parent_id = row
    parent = index.find_institution(catalog.db, parent_id) if parent_id else None
    units = tuple(Listed(i, n, 0) for i, n in index.units_of(catalog.db, iid))
    # Its units' papers are its papers too ("Google Research, Brain Team" is Google
    # Research's); a paper named by both is listed once, from page 1 if either was.
    sources: dict[str, str] = {}
    for unit_id in (iid, *(u.id for u in units)):
        for paper_id, source in index.institution_papers(catalog.db, unit_id):
            if sources.get(paper_id) != "pdf":
                sources[paper_id] = source
    found = [
        (paper, source)
        for paper_id, source in sources.items()
        if (paper := catalog.get_paper(paper_id)) is not None
    ]
    found.sort(key=lambda item: (item[0].published or item[0].updated, item[0].id), reverse=True)
    placed = index.placements_at(
        catalog.db, [iid, *(u.id for u in units)], [p.id for p, s in found if s == "pdf"]
    )
    members, others = _researchers(catalog, [p for p, _ in found], placed)
    return Institution(
        id=iid,
        name=name,
        parent=Listed(parent[0], parent[1], 0) if parent else None,
        units=units,
        papers=tuple(found),
        members=members,
        researchers=others,
        placed=len(placed),
        ror=index.ror_of(catalog.db, iid),
    )


def institution_by_ror(catalog: Catalog, value: str) -> Listed:
    """The institution a record names with the ROR id `value` (the id or its URL);
    InstitutionNotFound, saying why, for a malformed id or one no record gives."""
    try:
        rid = index.ror_id(value)
    except index.InvalidRorId as e:
        raise InstitutionNotFound(str(e)) from e
    iid = index.find_by_ror(catalog.db, rid)
    row = index.find_institution(catalog.db, iid) if iid else None
    if row is None:
        raise InstitutionNotFound(f"no institution with the ROR id {rid} in the index")
    return Listed(row[0], row[1], 0)


def _researchers(
    catalog: Catalog, papers: list[Paper], placed: dict[str, set[int]]
) -> tuple[tuple[Member, ...], tuple[Member, ...]]:
    """(those page 1 puts at it, the other authors), each most papers first."""
    counts: Counter[str] = Counter()
    at: Counter[str] = Counter()
    names: dict[str, str] = {}
    for paper_id, byline in catalog.bylines([p.id for p in papers]).items():
        ids, there = set(), set()
        for position, (written, _, _) in enumerate(byline):
            person = catalog.person(written)
            if person is not None and person.names:
                ids.add(rid := person_id(person))
                names.setdefault(rid, person.display)
                if position in placed.get(paper_id, ()):
                    there.add(rid)
        counts.update(ids)
        at.update(there)
    members = sorted(at.items(), key=lambda item: (-item[1], names[item[0]]))
    others = sorted(
        ((rid, n) for rid, n in counts.items() if rid not in at),
        key=lambda item: (-item[1], names[item[0]]),
    )
    return (
        tuple(Member(rid, names[rid], n) for rid, n in members[:MAX_RESEARCHERS]),
        tuple(Member(rid, names[rid], n) for rid, n in others[:MAX_RESEARCHERS]),
    )
