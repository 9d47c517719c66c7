"""BibTeX for one paper, and for the papers one answer cites, as `text/x-bibtex`.

The paper pages are public, and so is the BibTeX they link to
(`/papers/{id}/bibtex`); the API's copy needs a sign-in like the rest of
`/api`. An answer's file is its owner's alone: another user's conversation
or message is a 404. Included before the papers' router, whose
`/api/papers/{id}` takes any path.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from chat.library.bibtex import MEDIA_TYPE, bibliography, content_disposition, unique_keys
from chat.library.papers import PaperNotFound, paper_details
from chat.service.routes.deps import CurrentUser, ServicesDep, SessionDep
from chat.service.routes.errors import errors
from chat.service.storage.conversations import NotFound, get_conversation
from chat.service.storage.tables import Message
from ingest.index.catalog import Catalog

router = APIRouter(tags=["bibtex"])

_ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}


def _responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The BibTeX answer and the JSON errors. Spelt out: FastAPI would document a `model`
    under the route's own media type, and the errors are JSON, not BibTeX."""
    documented: dict[int | str, dict[str, Any]] = {
        200: {"content": {MEDIA_TYPE: {"schema": {"type": "string"}}}}
    }
    for status, response in errors(*statuses).items():
        content = {"application/json": {"schema": _ERROR_SCHEMA}}
        documented[status] = {"description": response["description"], "content": content}
    return documented


class BibTeXResponse(Response):
    media_type = MEDIA_TYPE


def _bibtex(text: str, stem: str) -> BibTeXResponse:
    return BibTeXResponse(text, headers={"Content-Disposition": content_disposition(stem)})


def _paper_file(services: ServicesDep, arxiv_id: str) -> BibTeXResponse:
    paper = paper_details(services.index.catalog, arxiv_id)
    return _bibtex(bibliography([paper]), unique_keys([paper])[0])


@router.get(
    "/api/papers/{arxiv_id:path}/bibtex",
    response_class=BibTeXResponse,
    responses=_responses(401, 404, 422),
)
def paper_bibtex(arxiv_id: str, _user: CurrentUser, services: ServicesDep) -> BibTeXResponse:
    """One paper's BibTeX entry; 404 if the index does not hold it."""
    return _paper_file(services, arxiv_id)


@router.get(
    "/papers/{arxiv_id:path}/bibtex", response_class=BibTeXResponse, include_in_schema=False
)
def public_paper_bibtex(arxiv_id: str, services: ServicesDep) -> BibTeXResponse:
    """The same entry for the public paper page's link."""
    return _paper_file(services, arxiv_id)


@router.get(
    "/api/conversations/{conversation_id}/messages/{message_id}/bibtex",
    response_class=BibTeXResponse,
    responses=_responses(401, 404, 422),
)
def answer_bibtex(
    conversation_id: str,
    message_id: str,
    user: CurrentUser,
    session: SessionDep,
    services: ServicesDep,
) -> BibTeXResponse:
    """The papers the answer cites, in the order it first cites them, as one file; 404 for
    another user's conversation or a message that is not one of its answers."""
    conversation = get_conversation(session, user.id, conversation_id)
    message = next((m for m in conversation.messages if m.id == message_id), None)
    if message is None or message.role != "assistant":
        raise NotFound(f"no answer {message_id!r} in conversation {conversation_id!r}")
    papers = cited_papers(services.index.catalog, message)
    text = bibliography(papers) if papers else "% This answer cites no papers.\n"
    return _bibtex(text, f"paperchat-{message.id}")


def cited_papers(catalog: Catalog, message: Message) -> list[dict[str, Any]]:
    """Each cited paper's record; one no longer in the index is described by the answer's
    own copy of its source (id, title, link)."""
    sources = {str(s.get("id")): s for s in message.sources or []}
    papers = []
    for cited in dict.fromkeys(message.citations or []):
        try:
            papers.append(paper_details(catalog, cited))
        except PaperNotFound:
            source = sources.get(cited, {})
            url = str(source.get("url") or "")
            papers.append(
                {
                    "id": cited,
                    "title": str(source.get("title") or cited),
                    "authors": "",
                    "published": None,
                    "categories": [],
                    "url": url if url.startswith("https://arxiv.org/") else None,
                }
            )
    return papers
