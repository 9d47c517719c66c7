"""`POST /api/retrieve`: the passages for a query, with their metadata, and no answer.

Signed in as for `/api/chat` and counted against the same budgets: an API
key's (`PAPERCHAT_API_RATE_LIMIT`) or the user's (`PAPERCHAT_RATE_LIMIT`).
"""

from __future__ import annotations

from typing import Self

from fastapi import APIRouter
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    model_validator,
)

from chat.library.authors import author_filter
from chat.rag.retrieval.config import MAX_QUERY_CHARS
from chat.rag.retrieval.passages import MAX_PASSAGES, RetrievedPassage, retrieve_passages
from chat.service.routes.deps import (
    AuthorName,
    Category,
    ChattingUser,
    IsoDate,
    MessageText,
    PaperId,
    ServicesDep,
    check_date_range,
)
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.records import normalise_paper_id

router = APIRouter(tags=["retrieve"])


class RetrieveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: MessageText = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description="what to search for"
    )
    k: int = Field(default=8, ge=1, le=MAX_PASSAGES, description="how many passages")
    paper_ids: list[PaperId] = Field(default_factory=list, max_length=50)
    author: AuthorName | None = Field(
        default=None, description="only this author's papers (404 when no indexed author)"
    )
    categories: list[Category] = Field(
        default_factory=list, max_length=20, description="arXiv categories, e.g. cs.CL"
    )
    published_from: IsoDate | None = Field(default=None, description="first version on or after")
    published_to: IsoDate | None = Field(default=None, description="first version on or before")

    @model_validator(mode="after")
    def a_real_query_and_range(self) -> Self:
        if not self.query.strip():
            raise ValueError("the query is empty")
        check_date_range(self.published_from, self.published_to)
        return self

    def filters(self, catalog: Catalog) -> Filters:
        """The request's filters, its author resolved to their papers (AuthorNotFound: 404)."""
        filters = Filters(
            paper_ids=tuple(normalise_paper_id(p) for p in self.paper_ids),
            categories=tuple(self.categories),
            published_from=self.published_from or "",
            published_to=self.published_to or "",
            author=self.author or "",
        )
        return author_filter(catalog, filters)


# A passage as this route sends it: the fields of `RetrievedPassage`, defined there only,
# under the name the API's schema has always given them (no docstring: it would be the
# schema's description).
class Passage(RetrievedPassage):
    pass


class Passages(BaseModel):
    passages: list[Passage]


@router.post("/api/retrieve", responses=errors(*BODY, *SIGNED_IN, 404, 429))
def retrieve(body: RetrieveRequest, _user: ChattingUser, services: ServicesDep) -> Passages:
    """The `k` best passages for `query` within the filters, best first, with scores."""
    retriever = services.index.retriever
    found = retrieve_passages(retriever, body.query, body.k, body.filters(retriever.catalog))
    return Passages(passages=[Passage(**vars(p)) for p in found])
