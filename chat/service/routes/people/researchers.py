"""`GET /api/researchers/{id}` and `GET /api/researchers?name=`: researcher profiles by
their stable ids (`ingest/index/names/researchers.py`), with positions and co-authors."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel

from chat.library.authors import MAX_AUTHOR_CHARS
from chat.library.researchers import person_by_id, researcher, search_researchers
from chat.service.routes.deps import CurrentUser, ServicesDep
from chat.service.routes.errors import errors

router = APIRouter(tags=["papers"])


class ResearcherPaper(BaseModel):
    id: str
    title: str
    published: str | None
    position: Literal["first", "middle", "last"]


class Coauthor(BaseModel):
    id: str
    name: str
    shared: int


class Researcher(BaseModel):
    id: str
    name: str
    path: str
    spellings: list[str]
    first_published: str | None
    latest_published: str | None
    papers: list[ResearcherPaper]
    coauthors: list[Coauthor]


class ResearcherMatch(BaseModel):
    id: str
    name: str
    path: str
    papers: int


class ResearcherMatches(BaseModel):
    results: list[ResearcherMatch]


@router.get("/api/researchers", responses=errors(401, 422))
def find_researchers(
    name: Annotated[str, Query(min_length=1, max_length=MAX_AUTHOR_CHARS)],
    _user: CurrentUser,
    services: ServicesDep,
) -> ResearcherMatches:
    """The researchers an author name may stand for: the one it matches, or everyone who
    could be meant when an initial fits several ("J. Smith"); empty when nobody does."""
    found = search_researchers(services.index.catalog, name)
    return ResearcherMatches(results=[ResearcherMatch.model_validate(r) for r in found])


@router.get("/api/researchers/{researcher_id}", responses=errors(401, 404, 422))
def get_researcher(researcher_id: str, _user: CurrentUser, services: ServicesDep) -> Researcher:
    """The researcher's papers, newest first, with their place in each byline (a sole
    author is `first`), and co-authors with the number of shared papers, most first.

    Matched by name: `spellings` are the names taken to be this researcher. The id of
    another spelling of theirs answers with the profile under its own `id`.
    """
    page = researcher(services.index.catalog, person_by_id(services.index.catalog, researcher_id))
    return Researcher(
        id=page.id,
        name=page.name,
        path=page.path,
        spellings=list(page.spellings),
        first_published=page.first_published or None,
        latest_published=page.latest_published or None,
        papers=[
            ResearcherPaper(
                id=a.paper.id,
                title=a.paper.title,
                published=a.paper.published or a.paper.updated or None,
                position=a.position,
            )
            for a in page.papers
        ],
        coauthors=[Coauthor(id=c.id, name=c.name, shared=c.shared) for c in page.coauthors],
    )
