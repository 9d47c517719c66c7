"""`/api/collections`: the signed-in user's collections of papers, and the papers in them.

Only their owner sees or changes a collection: another user's is a 404, as
one that does not exist is, on every route. A paper is added by its id (as
the paper pages and the chat's sources write it) and must be in the index.
The owner's own uploads, once read, go in beside the papers (`/uploads`): a
question within the collection reads them too, its share link and exports never
show them, and an upload deleted leaves every collection. An upload the library holds
already goes in as that library paper.
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, Response, status
from pydantic import BaseModel, Field

from chat.library.papers import paper_details
from chat.service.routes.deps import (
    CurrentUser,
    PaperId,
    PaperOut,
    ServicesDep,
    SessionDep,
    paper_list,
)
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.collections import (
    NameTaken,
    TooMany,
    add_paper,
    add_upload,
    collection_uploads,
    create_collection,
    delete_collection,
    get_collection,
    list_collections,
    paper_ids,
    remove_paper,
    remove_upload,
    rename_collection,
)
from chat.service.storage.tables import MAX_COLLECTION_NAME_CHARS, Collection, Upload
from chat.service.storage.uploads import ready_uploads
from chat.service.uploads.asking import library_paper
from ingest.index.records import normalise_paper_id

router = APIRouter(tags=["collections"])

CollectionName = Field(
    min_length=1,
    max_length=MAX_COLLECTION_NAME_CHARS,
    description="the name, unique among the user's collections; spaces are collapsed, and "
    "one of spaces alone is refused",
)


class NameRequest(BaseModel):
    name: str = CollectionName


class PaperRequest(BaseModel):
    paper_id: PaperId = Field(description="an id of a paper in the index, e.g. 2007.01282")


class CollectionOut(BaseModel):
    id: str
    name: str
    papers: int = Field(description="how many papers it holds")
    shared: bool = Field(description="whether a read-only link opens it")
    created_at: datetime
    updated_at: datetime


class Collections(BaseModel):
    collections: list[CollectionOut]


class CollectionUploadOut(BaseModel):
    """One of the owner's uploads in their collection; no one else sees it."""

    id: str = Field(description="the upload's id, as `/api/uploads` gives it")
    doc_id: str | None = Field(description="its paper's id, as answers cite it: `[doc:<id>]`")
    title: str | None
    filename: str


class CollectionPapers(BaseModel):
    id: str
    name: str
    papers: list[PaperOut] = Field(description="in the order they were added")
    uploads: list[CollectionUploadOut] = Field(
        default_factory=list,
        description="the owner's own uploads in it, in the order they were added",
    )


class UploadRequest(BaseModel):
    upload_id: str = Field(
        min_length=1, max_length=64, description="an id of the user's own upload, once `ready`"
    )


class AddedUpload(BaseModel):
    upload_id: str
    added: bool = Field(description="false when the collection held it already")
    paper_id: str | None = Field(
        default=None,
        description="the library's paper added in its place, for an upload the library "
        "holds (its `library_id`); null otherwise",
    )


class Added(BaseModel):
    paper_id: str
    added: bool = Field(description="false when the collection held it already")


def _out(collection: Collection, papers: int) -> CollectionOut:
    return CollectionOut(
        id=collection.id,
        name=collection.name,
        papers=papers,
        shared=collection.share_token_hash is not None,
        created_at=collection.created_at,
        updated_at=collection.updated_at,
    )


def _upload_out(upload: Upload) -> CollectionUploadOut:
    return CollectionUploadOut(
        id=upload.id, doc_id=upload.doc_id, title=upload.title, filename=upload.filename
    )


def _name(value: str) -> str:
    """`value` as a collection's name is kept: on one line, spaces collapsed; 422 when that
    is blank or too long."""
    name = " ".join(value.split())
    if not name:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "a collection's name is blank")
    if len(name) > MAX_COLLECTION_NAME_CHARS:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            f"a collection's name is at most {MAX_COLLECTION_NAME_CHARS} characters",
        )
    return name


@router.get("/api/collections", responses=errors(401))
def get_collections(user: CurrentUser, session: SessionDep) -> Collections:
    """The user's collections, the oldest first."""
    listed = list_collections(session, user.id)
    return Collections(collections=[_out(c, n) for c, n in listed])


@router.post(
    "/api/collections",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*BODY, *SIGNED_IN, 409),
)
def new_collection(
    body: NameRequest, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> CollectionOut:
    """A new, empty collection; 409 when the user has one of that name, 422 past
    `PAPERCHAT_MAX_COLLECTIONS`."""
    try:
        made = create_collection(
            session, user.id, _name(body.name), max_collections=services.settings.max_collections
        )
    except NameTaken as e:
        raise HTTPException(status.HTTP_409_CONFLICT, str(e)) from e
    except TooMany as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    return _out(made, 0)


@router.get("/api/collections/{collection_id}", responses=errors(401, 404, 422))
def get_one(
    collection_id: str, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> CollectionPapers:
    """The collection and its papers with their titles."""
    collection = get_collection(session, user.id, collection_id)
    ids = paper_ids(session, collection)
    papers = paper_list(services.index.catalog, ids)
    uploads = [_upload_out(u) for u in collection_uploads(session, collection)]
    return CollectionPapers(id=collection.id, name=collection.name, papers=papers, uploads=uploads)


@router.patch(
    "/api/collections/{collection_id}",
    responses=errors(*BODY, *SIGNED_IN, 404, 409),
)
def rename(
    collection_id: str, body: NameRequest, user: CurrentUser, session: SessionDep
) -> CollectionOut:
    """Rename the collection; 409 when the user has another of that name."""
    try:
        renamed = rename_collection(session, user.id, collection_id, _name(body.name))
    except NameTaken as e:
        raise HTTPException(status.HTTP_409_CONFLICT, str(e)) from e
    return _out(renamed, len(paper_ids(session, renamed)))


@router.delete(
    "/api/collections/{collection_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def remove(collection_id: str, user: CurrentUser, session: SessionDep) -> None:
    """The collection goes (the papers stay in the index); its share link stops working."""
    delete_collection(session, user.id, collection_id)


@router.get("/api/collections/{collection_id}/papers", responses=errors(401, 404, 422))
def get_papers(
    collection_id: str, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> list[PaperOut]:
    """The collection's papers with their titles, in the order they were added."""
    collection = get_collection(session, user.id, collection_id)
    return paper_list(services.index.catalog, paper_ids(session, collection))


@router.post(
    "/api/collections/{collection_id}/papers",
    status_code=status.HTTP_201_CREATED,
    responses={
        200: {"model": Added, "description": "the collection held the paper already"},
        **errors(*BODY, *SIGNED_IN, 404),
    },
)
def put_paper(
    collection_id: str,
    body: PaperRequest,
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
    response: Response,
) -> Added:
    """Add a paper; 200 when it is there already, 404 for a paper the index does not hold,
    422 past `PAPERCHAT_MAX_COLLECTION_PAPERS`."""
    get_collection(session, user.id, collection_id)
    paper_id = paper_details(services.index.catalog, body.paper_id)["id"]
    try:
        added = add_paper(
            session,
            user.id,
            collection_id,
            paper_id,
            max_papers=services.settings.max_collection_papers,
        )
    except TooMany as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    if not added:
        response.status_code = status.HTTP_200_OK
    return Added(paper_id=paper_id, added=added)


@router.delete(
    "/api/collections/{collection_id}/papers/{paper_id:path}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def take_paper(collection_id: str, paper_id: str, user: CurrentUser, session: SessionDep) -> None:
    """Take a paper out of the collection; 404 when it is not in it."""
    if not remove_paper(session, user.id, collection_id, normalise_paper_id(paper_id)):
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no paper {paper_id!r} in collection {collection_id!r}"
        )


@router.post(
    "/api/collections/{collection_id}/uploads",
    status_code=status.HTTP_201_CREATED,
    responses={
        200: {"model": AddedUpload, "description": "the collection held the upload already"},
        **errors(*BODY, *SIGNED_IN, 404),
    },
)
def put_upload(
    collection_id: str,
    body: UploadRequest,
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
    response: Response,
) -> AddedUpload:
    """Add one of the user's own uploads, once read: into an index of its own, or found in
    the library (its `library_id`), whose paper is added then (`paper_id`); 200 when it is
    there already, 404 for another user's (as for one that does not exist, or is not
    ready), 422 past `PAPERCHAT_MAX_COLLECTION_PAPERS` papers and uploads together."""
    get_collection(session, user.id, collection_id)
    paper_id = library_paper(session, user.id, body.upload_id)
    limit = services.settings.max_collection_papers
    try:
        if paper_id is not None:
            added = add_paper(session, user.id, collection_id, paper_id, max_papers=limit)
        else:
            [upload] = ready_uploads(session, user.id, [body.upload_id])
            added = add_upload(session, user.id, collection_id, upload.id, max_papers=limit)
    except TooMany as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    if not added:
        response.status_code = status.HTTP_200_OK
    return AddedUpload(upload_id=body.upload_id, added=added, paper_id=paper_id)


@router.delete(
    "/api/collections/{collection_id}/uploads/{upload_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def take_upload(collection_id: str, upload_id: str, user: CurrentUser, session: SessionDep) -> None:
    """Take an upload out of the collection (the upload stays), or the library's paper an
    upload the library holds was added as; 404 when it is not in it."""
    paper_id = library_paper(session, user.id, upload_id)
    if paper_id is not None:
        taken = remove_paper(session, user.id, collection_id, paper_id)
    else:
        taken = remove_upload(session, user.id, collection_id, upload_id)
    if not taken:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no upload {upload_id!r} in collection {collection_id!r}"
        )
