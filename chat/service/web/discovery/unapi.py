"""`/unapi`: the papers a page lists, each in a citation format, by the unAPI protocol
(unAPI 1.0) that reference managers (Zotero's unAPI translator) follow from a page's
`<link rel="unapi-server">` and its `<abbr class="unapi-id" title="ID">`s.

`/unapi` lists the formats; `?id=ID` lists them for one paper (300 Multiple Choices);
`?id=ID&format=NAME` is the paper in that format; 404 for a paper the index does not
hold, 406 for a format it does not offer, 400 for a format without an id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Final
from xml.etree import ElementTree

from fastapi import APIRouter, HTTPException, Query, Request, Response, status

from chat.library import ris
from chat.library.bibtex import MEDIA_TYPE as BIBTEX_MEDIA_TYPE
from chat.library.bibtex import bibliography
from chat.library.openurl import context_object
from chat.library.papers import PaperNotFound, page_path, paper_details
from chat.service.routes.deps import ServicesDep
from chat.service.web.address import site_address
from ingest.index.records import Paper

router = APIRouter(tags=["unapi"])

UNAPI_PATH: Final = "/unapi"
# name -> (media type, documentation): RIS first, the format Zotero prefers of the two.
FORMATS: Final = {
    "ris": (ris.MEDIA_TYPE.split(";")[0], "https://en.wikipedia.org/wiki/RIS_(file_format)"),
    "bibtex": (BIBTEX_MEDIA_TYPE.split(";")[0], "https://www.bibtex.org/Format/"),
}
_XML = "application/xml"


def _formats(paper_id: str = "") -> bytes:
    root = ElementTree.Element("formats", {"id": paper_id} if paper_id else {})
    for name, (media_type, docs) in FORMATS.items():
        ElementTree.SubElement(root, "format", {"name": name, "type": media_type, "docs": docs})
    document: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return document


def _paper(services: ServicesDep, paper_id: str) -> Paper:
    paper = services.index.catalog.get_paper(paper_id.strip())
    if paper is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no paper {paper_id!r} in the index")
    return paper


@router.get(UNAPI_PATH, response_class=Response, include_in_schema=False)
def unapi(
    request: Request,
    services: ServicesDep,
    paper_id: Annotated[str, Query(alias="id", max_length=200)] = "",
    name: Annotated[str, Query(alias="format", max_length=40)] = "",
) -> Response:
    """The formats, a paper's formats, or a paper in one of them."""
    if not paper_id:
        if name:
            raise HTTPException(status.HTTP_400_BAD_REQUEST, "a format needs an id")
        return Response(_formats(), media_type=_XML)
    paper = _paper(services, paper_id)
    if not name:
        return Response(_formats(paper.id), status.HTTP_300_MULTIPLE_CHOICES, media_type=_XML)
    if name not in FORMATS:
        offered = ", ".join(FORMATS)
        raise HTTPException(status.HTTP_406_NOT_ACCEPTABLE, f"no format {name!r}: {offered}")
    if name == "ris":
        page = f"{site_address(request, services.settings)}{page_path(paper)}"
        return Response(ris.record(paper, page), media_type=ris.MEDIA_TYPE)
    try:
        details = paper_details(services.index.catalog, paper.id)
    except PaperNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
    return Response(bibliography([details]), media_type=BIBTEX_MEDIA_TYPE)


def coins_of(request: Request, services: ServicesDep) -> Callable[[str], str]:
    """For a listing page: a paper id's COinS ContextObject ("" for a paper the index no
    longer holds), which the page writes beside the paper's unAPI id."""
    catalog, site = services.index.catalog, site_address(request, services.settings)

    def coins(paper_id: str) -> str:
        paper = catalog.get_paper(paper_id)
        return context_object(paper, f"{site}{page_path(paper)}") if paper else ""

    return coins
