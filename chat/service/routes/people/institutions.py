"""`GET /api/institutions?name=` and `GET /api/institutions/{id}`: institutions read from
the papers' affiliations (page 1 of the PDFs, and the records' authors)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, status
from pydantic import BaseModel

from chat.library.institutions import (
    MAX_LISTED,
    InstitutionNotFound,
    find_institutions,
    institution,
    institution_by_ror,
)
from chat.service.routes.deps import CurrentUser, ServicesDep
from chat.service.routes.errors import errors
from ingest.index.names.institutions import ROR_ID_PATTERN, InvalidRorId, ror_id, ror_url

router = APIRouter(tags=["papers"])
MAX_INSTITUTION_NAME_CHARS = 200
MAX_ROR_CHARS = 64  # a ROR id's URL is 25 characters


class InstitutionMatch(BaseModel):
    id: str
    name: str
    papers: int


class InstitutionMatches(BaseModel):
    results: list[InstitutionMatch]


class InstitutionPaper(BaseModel):
    id: str
    title: str
    published: str | None
    source: Literal["pdf", "record"]  # where the affiliation was read


class InstitutionResearcher(BaseModel):
    id: str
    name: str
    papers: int
    # Put at the institution by page 1 of one of its papers (its marks or author blocks);
    # false: an author of its papers of whom the PDFs do not say so.
    affiliated: bool


class Related(BaseModel):
    id: str
    name: str


class Institution(BaseModel):
    id: str
    name: str
    path: str
    ror: str | None  # its ROR id's URL, where a paper's record gives one
    parent: Related | None
    units: list[Related]
    papers: list[InstitutionPaper]
    researchers: list[InstitutionResearcher]


@router.get("/api/institutions", responses=errors(401, 422))
def list_institutions(
    _user: CurrentUser,
    services: ServicesDep,
    name: Annotated[str, Query(max_length=MAX_INSTITUTION_NAME_CHARS)] = "",
    ror: Annotated[str, Query(max_length=MAX_ROR_CHARS, pattern=f"^$|{ROR_ID_PATTERN}")] = "",
) -> InstitutionMatches:
    """The institutions whose name holds `name` (without case; all without it), most papers
    first, at most 1000; with `ror` (a ROR id or its URL), the institution a paper's record
    gives that id, or none (422 for what is not a ROR id)."""
    catalog = services.index.catalog
    if ror:
        try:
            one = institution_by_ror(catalog, ror_id(ror))
        except InvalidRorId as e:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
        except InstitutionNotFound:
            return InstitutionMatches(results=[])
        found = [i for i in find_institutions(catalog, one.name) if i.id == one.id]
        return InstitutionMatches(
            results=[InstitutionMatch(id=i.id, name=i.name, papers=i.papers) for i in found]
        )
    found = find_institutions(catalog, name)[:MAX_LISTED]
    return InstitutionMatches(
        results=[InstitutionMatch(id=i.id, name=i.name, papers=i.papers) for i in found]
    )


@router.get("/api/institutions/{institution_id}", responses=errors(401, 404, 422))
def get_institution(institution_id: str, _user: CurrentUser, services: ServicesDep) -> Institution:
    """The institution's papers, newest first, each with where its affiliation was read
    (`pdf`: page 1 of the PDF; `record`: the record's authors), the researchers on those
    papers (those page 1 of a paper puts at it, `affiliated`, first; then the other
    authors; each most papers first), and the parent and units the PDFs name."""
    found = institution(services.index.catalog, institution_id)
    return Institution(
        id=found.id,
        name=found.name,
        path=found.path,
        ror=ror_url(found.ror) if found.ror else None,
        parent=Related(id=found.parent.id, name=found.parent.name) if found.parent else None,
        units=[Related(id=u.id, name=u.name) for u in found.units],
        papers=[
            InstitutionPaper(
                id=p.id,
                title=p.title,
                published=p.published or p.updated or None,
                source="pdf" if source == "pdf" else "record",
            )
            for p, source in found.papers
        ],
        researchers=[
            InstitutionResearcher(id=r.id, name=r.name, papers=r.papers, affiliated=True)
            for r in found.members
        ]
        + [
            InstitutionResearcher(id=r.id, name=r.name, papers=r.papers, affiliated=False)
            for r in found.researchers
        ],
    )
