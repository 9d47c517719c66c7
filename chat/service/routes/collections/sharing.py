"""A collection as a file (BibTeX, CSV, Markdown), and its read-only share link.

The owner makes a link (`POST /api/collections/{id}/share`): its secret is
shown once, and anyone with the link reads the collection's name and papers,
as JSON or as any of its files, until the owner revokes it or makes a new
one; then the old link is a 404, as a mistyped one is. The link shows nothing
of the owner. Papers the index no longer holds are left out of the files.

The CSV and Markdown files escape as the comparison table's do
(`chat.rag.compare.exports`): no cell a spreadsheet runs as a formula, no
record's markup read as HTML, every row one line with the header's columns;
a title is the readable text of its TeX there. The BibTeX file is the papers'
own entries (`chat.library.bibtex`), TeX commands made harmless as there.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel

from chat.library import bibtex
from chat.rag.compare.exports import (
    CSV_MEDIA_TYPE,
    MARKDOWN_MEDIA_TYPE,
    markdown_cell,
    spreadsheet_safe,
)
from chat.service.routes.deps import (
    CurrentUser,
    PaperOut,
    ServicesDep,
    SessionDep,
    paper_list,
    paper_records,
)
from chat.service.routes.errors import SIGNED_IN, errors
from chat.service.storage.collections import (
    get_collection,
    new_share_token,
    paper_ids,
    revoke_share_token,
    shared_collection,
)
from chat.service.storage.notes import list_notes
from chat.service.storage.tables import Collection
from chat.service.web.address import site_address
from ingest.index.catalog import Catalog
from ingest.index.tex import readable_tex

router = APIRouter(tags=["collections"])

FileFormat = Literal["bibtex", "csv", "markdown"]
Records = Sequence[Mapping[str, Any]]
CSV_COLUMNS = ("paper_id", "title", "authors", "published", "categories", "url")
NO_STORE = "no-store"
_UNSAFE_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_FILE_STEM_CHARS = 80


def file_name(name: str, extension: str) -> str:
    """A safe download name for the collection `name`'s file: letters, digits, '.', '_'
    and '-', anything else as '-'."""
    stem = _UNSAFE_FILE_NAME.sub("-", name).strip(".-")[:_MAX_FILE_STEM_CHARS]
    return f"{stem or 'collection'}.{extension}"


def _cells(paper: Mapping[str, Any]) -> list[str]:
    """One paper's row: id, readable title, authors joined by '; ', date, categories, link."""
    return [
        str(paper["id"]),
        readable_tex(str(paper.get("title") or "")),
        "; ".join(bibtex.split_authors(str(paper.get("authors") or ""))),
        str(paper.get("published") or ""),
        " ".join(str(c) for c in paper.get("categories") or []),
        str(paper.get("url") or ""),
    ]


def as_csv(_name: str, papers: Records) -> str:
    """The papers as CSV (RFC 4180: CRLF line ends), a header row first."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for paper in papers:
        writer.writerow([spreadsheet_safe(cell) for cell in _cells(paper)])
    return out.getvalue()


def as_markdown(name: str, papers: Records, notes: Mapping[str, Sequence[str]] = {}) -> str:
    """The collection as Markdown: its name as the heading, then a table of its papers,
    each cited as an answer cites it; then `notes` (a paper's id to its notes' texts) under
    each paper that has some, each note's lines quoted with their markup escaped."""
    head = ["paper", "title", "authors", "published"]
    lines = [f"# {markdown_cell(name)}", "", "| " + " | ".join(head) + " |", "|" + "---|" * 4]
    for paper in papers:
        paper_id, title, authors, published, _categories, url = _cells(paper)
        cited = f"[arXiv:{paper_id}]" if url else f"[doc:{paper_id}]"
        row = [cited, title, authors, published]
        lines.append("| " + " | ".join(markdown_cell(cell) for cell in row) + " |")
    for paper in papers:
        lines.extend(_notes_markdown(paper, notes.get(str(paper["id"]), ())))
    return "\n".join(lines) + "\n"


def _notes_markdown(paper: Mapping[str, Any], notes: Sequence[str]) -> list[str]:
    if not notes:
        return []
    title = readable_tex(str(paper.get("title") or ""))
    lines = ["", f"## Notes on {markdown_cell(str(paper['id']))}: {markdown_cell(title)}"]
    for note in notes:
        lines.append("")
        lines.extend(f"> {markdown_cell(line)}" for line in note.splitlines())
    return lines


def _bibtex(_name: str, papers: Records) -> str:
    return bibtex.bibliography(papers) if papers else "% This collection holds no papers.\n"


_FILES: dict[str, tuple[str, str, Callable[[str, Records], str]]] = {
    "bibtex": (bibtex.MEDIA_TYPE, "bib", _bibtex),
    "csv": (CSV_MEDIA_TYPE, "csv", as_csv),
    "markdown": (MARKDOWN_MEDIA_TYPE, "md", as_markdown),
}
_FILE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {media: {"schema": {"type": "string"}} for media, _, _ in _FILES.values()},
        "description": "the collection as a file",
    }
}


class ShareLink(BaseModel):
    url: str


class SharedCollection(BaseModel):
    name: str
    papers: list[PaperOut]


def _file(
    catalog: Catalog,
    collection: Collection,
    ids: list[str],
    format: str,
    notes: Mapping[str, Sequence[str]] | None = None,
) -> Response:
    """The collection as a file; its Markdown holds `notes` (the owner's, never a shared
    link's)."""
    records = [r for r in paper_records(catalog, ids) if not isinstance(r, str)]
    media_type, extension, write = _FILES[format]
    name = file_name(collection.name, extension)
    body = write(collection.name, records)
    if format == "markdown" and notes:
        body = as_markdown(collection.name, records, notes)
    return Response(
        body,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get(
    "/api/collections/{collection_id}/export",
    response_class=Response,
    responses={**_FILE_RESPONSES, **errors(401, 404, 422)},
)
def export(
    collection_id: str,
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
    format: Annotated[FileFormat, Query(description="bibtex, csv or markdown")] = "bibtex",
) -> Response:
    """The collection's papers as one file, in the order they were added; the Markdown
    holds the user's notes on them."""
    collection = get_collection(session, user.id, collection_id)
    ids = paper_ids(session, collection)
    notes: dict[str, list[str]] = {}
    if format == "markdown":
        for note in list_notes(session, user.id, ids):
            notes.setdefault(note.paper_id, []).append(note.text)
    return _file(services.index.catalog, collection, ids, format, notes)


@router.post(
    "/api/collections/{collection_id}/share",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*SIGNED_IN, 404, 422),
)
def share(
    collection_id: str,
    request: Request,
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
) -> ShareLink:
    """A new read-only link to the collection; an earlier one stops working. The link is
    shown here and never again."""
    token = new_share_token(session, user.id, collection_id)
    path = request.app.url_path_for("shared_collection", token=token)
    return ShareLink(url=site_address(request, services.settings) + str(path))


@router.delete(
    "/api/collections/{collection_id}/share",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def unshare(collection_id: str, user: CurrentUser, session: SessionDep) -> None:
    """The collection's read-only link stops working (if it had one)."""
    revoke_share_token(session, user.id, collection_id)


@router.get(
    "/shared/collections/{token}",
    name="shared_collection",
    responses={
        200: {
            "model": SharedCollection,
            "content": {media: {} for media, _, _ in _FILES.values()},
            "description": "the collection's name and papers; a file with `format`",
        },
        **errors(404, 422),
    },
)
def shared(
    token: str,
    response: Response,
    services: ServicesDep,
    session: SessionDep,
    format: Annotated[
        Literal["json", FileFormat], Query(description="json, or bibtex, csv or markdown")
    ] = "json",
) -> Any:
    """A shared collection, read-only, for anyone with its link; 404 once it is revoked.
    No cache keeps it: a revoked link must stop answering at once."""
    collection = shared_collection(session, token)
    ids = paper_ids(session, collection)
    catalog = services.index.catalog
    if format != "json":
        file = _file(catalog, collection, ids, format)
        file.headers["Cache-Control"] = NO_STORE
        return file
    response.headers["Cache-Control"] = NO_STORE
    return SharedCollection(name=collection.name, papers=paper_list(catalog, ids))
