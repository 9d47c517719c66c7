"""`GET /api/authors/{name}`: one author's papers in the index, newest first, with counts."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from chat.library.authors import author_page, paper_summary
from chat.service.routes.deps import CurrentUser, ServicesDep
from chat.service.routes.errors import errors

router = APIRouter(tags=["papers"])


class AuthorPaper(BaseModel):
    id: str
    title: str
    authors: str
    categories: list[str]
    published: str | None
    url: str | None


class Count(BaseModel):
    name: str
    papers: int


class Author(BaseModel):
    name: str
    spellings: list[str]
    papers: list[AuthorPaper]
    categories: list[Count]
    years: list[Count]
    maybe: list[str]


@router.get("/api/authors/{name:path}", responses=errors(401, 404, 422))
def get_author(name: str, _user: CurrentUser, services: ServicesDep) -> Author:
    """The author's papers, newest first, and how many per category and per year.

    Names match without case or accents, and an initial stands for a full first name when
    only one indexed author has that surname and initial ("A. Vaswani", "ashish vaswani").
    `spellings` are the names taken to be this author; `maybe` the ones that could be them
    or someone else. 404 when no indexed author goes by the name.
    """
    page = author_page(services.index.catalog, name)
    return Author(
        name=page.name,
        spellings=list(page.spellings),
        papers=[AuthorPaper.model_validate(paper_summary(p)) for p in page.papers],
        categories=[Count(name=c, papers=n) for c, n in page.categories],
        years=[Count(name=y, papers=n) for y, n in page.years],
        maybe=list(page.maybe),
    )
