"""`POST /api/collections/import`: a BibTeX, CSL-JSON or RIS file becomes a new collection
of the library's papers its entries name.

The file comes as text in a JSON body, or as the `file` of a multipart form; either way
`PAPERCHAT_MAX_BODY_BYTES` bounds it. Entries are matched by arXiv id, else DOI, else
title; the answer lists the papers matched (and how), the entries no paper matched (and
why) and those that could not be read. With `PAPERCHAT_IMPORT_HARVEST` on, the arXiv
papers the library does not hold (up to `PAPERCHAT_IMPORT_HARVEST_MAX`) are fetched from
arXiv and ingested first, in the request's worker thread (the event loop goes on), one
import at a time. Past `PAPERCHAT_MAX_COLLECTION_PAPERS` the first papers are kept and the
rest listed as unmatched; past `PAPERCHAT_MAX_COLLECTIONS` nothing is made (422).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import PurePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import UploadFile

from chat.library.imports.entries import Reading, UnreadableFile
from chat.library.imports.formats import read_library
from chat.library.imports.harvesting import Harvest, harvest_ids
from chat.library.imports.matching import Match, Miss, match_entries
from chat.service.routes.deps import CurrentUser, Services, ServicesDep, SessionDep
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.collections import NameTaken, TooMany, create_collection, fill_collection
from chat.service.storage.tables import MAX_COLLECTION_NAME_CHARS
from ingest.index.catalog import Catalog
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.sources.arxiv_api import ArxivClient
from ingest.text import check_text

router = APIRouter(tags=["collections"])

# A collection made from a file with no name of its own and no name given.
DEFAULT_NAME = "Imported"
# How long the importer waits for arXiv: one request, tried twice, a second apart.
ARXIV_TIMEOUT_S = 20.0
ARXIV_RETRIES = 1
ARXIV_BACKOFF_S = 1.0
# One import fetches from arXiv at a time: arXiv asks for one request at a time, spaced
# `PAPERCHAT_ARXIV_INTERVAL_S` apart (from one import to the next too), and the index has
# one writer here.
_HARVESTING = threading.Lock()
_next_request = [0.0]  # time.monotonic() before which no import may ask arXiv again

FileText = Annotated[str, AfterValidator(lambda text: check_text(text, "the file"))]
Format = Literal["bibtex", "csl-json", "ris"]


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
        "by its text unless `format` says"
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
    format: Format | None = Field(None, description="the file's format; unset: told from its text")


# The multipart form: the file itself, and the JSON body's other fields.
_FORM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["file"],
    "properties": {
        "file": {
            "type": "string",
            "format": "binary",
            "description": "the file, UTF-8 text: BibTeX, CSL-JSON or RIS; its name names "
            "the collection unless `name` does",
        },
        "name": {"type": "string", "maxLength": MAX_COLLECTION_NAME_CHARS},
        "file_name": {"type": "string", "maxLength": 255},
        "format": {"type": "string", "enum": ["bibtex", "csl-json", "ris"]},
    },
}
_REQUEST_BODY = {
    "required": True,
    "content": {
        "application/json": {"schema": ImportRequest.model_json_schema()},
        "multipart/form-data": {"schema": _FORM_SCHEMA},
    },
}


class ImportedOut(BaseModel):
    id: str
    name: str
    papers: int = Field(description="how many papers it holds")


class MatchedOut(BaseModel):
    paper_id: str
    at: str = Field(description="where the entry is in the file: `line 12`, `item 3`")
    title: str = Field(description="the entry's title")
    matched_by: str = Field(
        description="`arxiv_id`, `doi` or `title`; `harvested`: fetched from arXiv for this "
        "import (`PAPERCHAT_IMPORT_HARVEST`)"
    )


class UnmatchedOut(BaseModel):
    at: str
    title: str
    reason: str = Field(description="why no paper is in the collection for it")


class UnreadableOut(BaseModel):
    at: str
    reason: str = Field(description="what could not be read, with its line")


class ImportOut(BaseModel):
    collection: ImportedOut
    format: str = Field(description="`bibtex`, `csl-json` or `ris`")
    matched: list[MatchedOut] = Field(description="the papers now in the collection")
    unmatched: list[UnmatchedOut]
    unreadable: list[UnreadableOut]


def _invalid(error: ValidationError) -> RequestValidationError:
    found = [{**e, "loc": ("body", *e["loc"])} for e in error.errors(include_url=False)]
    return RequestValidationError(found)


async def _form_fields(request: Request) -> dict[str, Any]:
    """A multipart form's fields, its `file` read as UTF-8 text into `content`."""
    form = await request.form(max_files=1, max_fields=len(_FORM_SCHEMA["properties"]))
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise HTTPException(
                status.HTTP_422_UNPROCESSABLE_CONTENT, "the form has no file in its `file` field"
            )
        data = await upload.read()
        try:
            content = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise HTTPException(
                status.HTTP_422_UNPROCESSABLE_CONTENT,
                f"the file is binary or not UTF-8 (byte {e.start + 1}), not BibTeX, CSL-JSON "
                "or RIS text",
            ) from e
        fields: dict[str, Any] = {"content": content, "file_name": upload.filename or None}
        for key in ("name", "file_name", "format"):
            if isinstance(value := form.get(key), str) and value:
                fields[key] = value
        return fields
    finally:
        await form.close()


async def import_request(request: Request) -> ImportRequest:
    """The JSON body, or the multipart form with the file in `file`."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type == "multipart/form-data":
        fields: Any = await _form_fields(request)
    elif media_type and media_type != "application/json" and not media_type.endswith("+json"):
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            "send the file as the `content` of a JSON body or as the `file` of a "
            f"multipart/form-data form, not as {media_type}",
        )
    else:
        try:
            fields = json.loads(await request.body())
        except ValueError as e:
            where = ("body", getattr(e, "pos", 0))
            raise RequestValidationError(
                [{"type": "json_invalid", "loc": where, "msg": "JSON decode error", "input": {}}]
            ) from e
    try:
        return ImportRequest.model_validate(fields)
    except ValidationError as e:
        raise _invalid(e) from e


def _reading(body: ImportRequest) -> Reading:
    """The file's entries; 422 for a file none of whose entries can be read."""
    try:
        reading = read_library(body.content, body.format)
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


def _fetch(services: Services, ids: list[str]) -> Harvest:
    """`ids` fetched from arXiv and ingested into the library, as `paperchat harvest` does,
    after the previous import's request is `PAPERCHAT_ARXIV_INTERVAL_S` old."""
    settings, index = services.settings, services.index
    client = ArxivClient(
        api_url=settings.arxiv_api_url,
        pdf_base_url=settings.arxiv_pdf_url,
        interval=settings.arxiv_interval_s,
        timeout=ARXIV_TIMEOUT_S,
        max_retries=ARXIV_RETRIES,
        backoff=ARXIV_BACKOFF_S,
        max_wait=ARXIV_TIMEOUT_S,
    )
    catalog = Catalog(settings.catalog_location)
    try:
        with _HARVESTING, client:
            time.sleep(max(0.0, _next_request[0] - time.monotonic()))
            embedder = index.embedder
            pipeline = Pipeline(catalog, index.indexer, embedder.embed, NoProgress())
            try:
                return harvest_ids(client, ids, pipeline, embedder.count_tokens)
            finally:
                _next_request[0] = time.monotonic() + settings.arxiv_interval_s
    finally:
        catalog.close()


def _harvested(services: Services, missed: list[Miss]) -> tuple[list[Match], list[Miss]]:
    """When the operator allows it, the missed entries' arXiv papers fetched: the entries
    they now match, and the entries still missed (with why)."""
    settings = services.settings
    ids = list(dict.fromkeys(m.entry.arxiv_id for m in missed if m.entry.arxiv_id))
    if not settings.import_harvest or not ids:
        return [], missed
    most = settings.import_harvest_max
    got = _fetch(services, ids[:most])
    found: list[Match] = []
    still: list[Miss] = []
    for miss in missed:
        arxiv_id = miss.entry.arxiv_id
        if arxiv_id in got.added:
            found.append(Match(miss.entry, arxiv_id, "harvested"))
        elif arxiv_id in got.failed:
            still.append(Miss(miss.entry, got.failed[arxiv_id]))
        elif arxiv_id:
            why = f"{miss.reason}; an import fetches at most {most} papers from arXiv"
            still.append(Miss(miss.entry, why))
        else:
            still.append(miss)
    return found, still


@router.post(
    "/api/collections/import",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*BODY, *SIGNED_IN, 409),
    openapi_extra={"requestBody": _REQUEST_BODY},
)
def import_collection(
    body: Annotated[ImportRequest, Depends(import_request)],
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
) -> ImportOut:
    """A new collection of the papers a BibTeX, CSL-JSON or RIS file names, sent as JSON
    or as the `file` of a multipart form; 409 when the user has a collection of that name,
    422 for a file none of whose entries can be read (naming the first), or past
    `PAPERCHAT_MAX_COLLECTIONS`."""
    name = _new_name(body)
    reading = _reading(body)
    matched, missed = match_entries(services.index.catalog, reading.entries)
    try:
        made = create_collection(
            session, user.id, name, max_collections=services.settings.max_collections
        )
    except NameTaken as e:
        raise HTTPException(status.HTTP_409_CONFLICT, str(e)) from e
    except TooMany as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    harvested, missed = _harvested(services, missed)
    matched += harvested
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
