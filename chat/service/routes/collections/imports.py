"""`POST /api/collections/import`: a BibTeX, CSL-JSON or RIS file becomes a new collection
of the library's papers its entries name.

The file comes as text in a JSON body (so `PAPERCHAT_MAX_BODY_BYTES` bounds
it). Entries are matched by arXiv id, else DOI, else title; the answer lists
the papers matched (and how), the entries no paper matched (and why) and
those that could not be read. Past `PAPERCHAT_MAX_COLLECTION_PAPERS` the
first papers are kept and the rest listed as unmatched; past
`PAPERCHAT_MAX_COLLECTIONS` nothing is made (422).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated

from fastapi import APIRouter, HTTPException, status
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from chat.library.imports.entries import Reading, UnreadableFile
from chat.library.imports.formats import read_library
from chat.library.imports.matching import Miss, match_entries
from chat.service.routes.deps import CurrentUser, ServicesDep, SessionDep
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.collections import NameTaken, TooMany, create_collection, fill_collection
from chat.service.storage.tables import MAX_COLLECTION_NAME_CHARS
from ingest.text import check_text

router = APIRouter(tags=["collections"])

# A collection made from a file with no name of its own and no name given.
DEFAULT_NAME = "Imported"

FileText = Annotated[str, AfterValidator(lambda text: check_text(text, "the file"))]


class ImportRequest(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "content": "@misc{izacard2020distilling,\n  title={Distilling Knowledge "
                    "from Reader to Retriever for Question Answering},\n  eprint={2007.01282},"
                    "\n  archivePrefix={arXiv}\n}\n",
                    "file_name": "Retrieval.bib",
                }
            ]
        }
    )

    content: FileText = Field(
        description="the file's text: BibTeX, CSL-JSON (Zotero's export) or RIS, told apart "
        "by its text"
    )
    name: FileText | None = Field(
        None,
        max_length=MAX_COLLECTION_NAME_CHARS,
        description="the new collection's name; unset or blank: the file's name without "
        f"extension, else {DEFAULT_NAME!r}",
    )
    file_name: FileText | None = Field(
        None, max_length=255, description="the file's name, e.g. `My Library.bib`"
    )


class ImportedOut(BaseModel):
    id: str
    name: str
    papers: int = Field(description="how many papers it holds")


class MatchedOut(BaseModel):
    paper_id: str
    at: str = Field(description="where the entry is in the file: `line 12`, `item 3`")
    title: str = Field(description="the entry's title")
    matched_by: str = Field(description="`arxiv_id`, `doi` or `title`")


class UnmatchedOut(BaseModel):
    at: str
    title: str
    reason: str


class UnreadableOut(BaseModel):
    at: str
    reason: str = Field(description="what could not be read, with its line")


class ImportOut(BaseModel):
    collection: ImportedOut
    format: str = Field(description="`bibtex`, `csl-json` or `ris`")
    matched: list[MatchedOut] = Field(description="the papers now in the collection")
    unmatched: list[UnmatchedOut]
    unreadable: list[UnreadableOut]


def _reading(content: str) -> Reading:
    """The file's entries; 422 for a file none of whose entries can be read."""
    try:
        reading = read_library(content)
    except UnreadableFile as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    if not reading.entries:
        first = reading.unreadable[0] if reading.unreadable else None
        why = f"{first.at}: {first.reason}" if first is not None else "the file has no entry"
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"no entry is readable: {why}")
    return reading


def _new_name(body: ImportRequest) -> str:
    """The name given, else the file's without extension, else `DEFAULT_NAME`: the first
    that is not blank, on one line, cut to a collection name's length."""
    stem = PurePath(body.file_name or "").stem
    for name in (body.name or "", stem, DEFAULT_NAME):
        if one_line := " ".join(name.split()):
            return one_line[:MAX_COLLECTION_NAME_CHARS].rstrip()
    return DEFAULT_NAME


@router.post(
    "/api/collections/import",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*BODY, *SIGNED_IN, 409),
)
def import_collection(
    body: ImportRequest, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> ImportOut:
    """A new collection of the papers a BibTeX, CSL-JSON or RIS file names; 409 when the
    user has a collection of that name, 422 for a file none of whose entries can be read
    (naming the first), or past `PAPERCHAT_MAX_COLLECTIONS`."""
    name = _new_name(body)
    reading = _reading(body.content)
    matched, missed = match_entries(services.index.catalog, reading.entries)
    try:
        made = create_collection(
            session, user.id, name, max_collections=services.settings.max_collections
        )
    except NameTaken as e:
        raise HTTPException(status.HTTP_409_CONFLICT, str(e)) from e
    except TooMany as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    most = services.settings.max_collection_papers
    left_out = set(fill_collection(session, made, [m.paper_id for m in matched], max_papers=most))
    full = f"the collection holds at most {most} papers"
    missed += [Miss(m.entry, full) for m in matched if m.paper_id in left_out]
    kept = [m for m in matched if m.paper_id not in left_out]
    return ImportOut(
        collection=ImportedOut(
            id=made.id, name=made.name, papers=len({m.paper_id for m in kept})
        ),
        format=reading.format,
        matched=[MatchedOut(paper_id=m.paper_id, at=m.entry.at, title=m.entry.title,
                            matched_by=m.how) for m in kept],
        unmatched=[UnmatchedOut(at=m.entry.at, title=m.entry.title, reason=m.reason)
                   for m in missed],
        unreadable=[UnreadableOut(at=u.at, reason=u.reason) for u in reading.unreadable],
    )  # fmt: skip
