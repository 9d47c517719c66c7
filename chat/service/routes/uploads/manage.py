"""Upload a PDF, see how reading it went, list and delete uploads.

`POST /api/uploads` takes a multipart form whose `file` field is the PDF: it is kept and
read in the background (202, `processing`); `GET /api/uploads/{id}` then says `ready`
(with the `doc_id` its answers cite as `[doc:<id>]`, or the `library_id` of the library's
paper it is, which it then links to instead of keeping a copy) or `failed` with the
reason. The PDF's size is bounded by `PAPERCHAT_MAX_UPLOAD_MB` (413), what a user keeps
by `PAPERCHAT_MAX_UPLOADS_PER_USER` (409) and `PAPERCHAT_MAX_UPLOAD_MB_PER_USER` (413).
`DELETE` removes the upload's PDF and its whole index.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, File, HTTPException, Request, UploadFile, status
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from chat.service.routes.deps import CurrentUser, ServicesDep, SessionDep
from chat.service.routes.errors import SIGNED_IN, errors
from chat.service.storage.tables import MAX_UPLOAD_NAME_CHARS, Upload
from chat.service.storage.uploads import (
    MB,
    AlreadyUploaded,
    Quota,
    QuotaExceeded,
    UploadNotFound,
    create_upload,
    delete_upload,
    get_upload,
    list_uploads,
)
from chat.service.uploads.reading import PDF_FILE, PDF_MAGIC, UploadReader, sha256_of

router = APIRouter(tags=["uploads"])

# Where a PDF's `%PDF-` header may start (the PDF reference allows junk before it).
HEADER_WITHIN = 1024


def get_reader(request: Request) -> UploadReader:
    reader: UploadReader = request.app.state.uploads
    return reader


ReaderDep = Annotated[UploadReader, Depends(get_reader)]


class UploadOut(BaseModel):
    id: str
    filename: str
    bytes: int
    status: str = Field(description="`processing`, `ready` or `failed`")
    reason: str | None = Field(description="why it failed; null otherwise")
    doc_id: str | None = Field(
        description="ready: its paper in its own index, which answers cite (`[doc:<id>]`, or "
        "`[arXiv:<id>]` for an arXiv paper the library does not hold)"
    )
    library_id: str | None = Field(
        description="ready: the library's paper this PDF is, linked instead of kept"
    )
    title: str | None
    pages: int | None
    chunks: int | None
    created_at: datetime
    updated_at: datetime


class Uploads(BaseModel):
    uploads: list[UploadOut] = Field(description="the newest first")


def _out(upload: Upload) -> UploadOut:
    return UploadOut(
        id=upload.id,
        filename=upload.filename,
        bytes=upload.bytes,
        status=upload.status,
        reason=upload.reason,
        doc_id=upload.doc_id,
        library_id=upload.library_id,
        title=upload.title,
        pages=upload.pages,
        chunks=upload.chunks,
        created_at=upload.created_at,
        updated_at=upload.updated_at,
    )


def clean_filename(name: str | None) -> str:
    """The file's own name (no folders), without control characters, at most
    `MAX_UPLOAD_NAME_CHARS`; `upload.pdf` for none."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    kept = "".join(c for c in base if unicodedata.category(c) not in {"Cc", "Cf", "Cs"}).strip()
    return kept[:MAX_UPLOAD_NAME_CHARS] or "upload.pdf"


async def _content(file: UploadFile, max_bytes: int) -> bytes:
    content = await file.read(max_bytes + 1)
    if len(content) > max_bytes:
        detail = f"the PDF is larger than {max_bytes // MB} MB (PAPERCHAT_MAX_UPLOAD_MB)"
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, detail)
    if not content:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "the file is empty")
    if PDF_MAGIC not in content[:HEADER_WITHIN]:
        detail = "the file is not a PDF (it does not start with %PDF-)"
        raise HTTPException(status.HTTP_415_UNSUPPORTED_MEDIA_TYPE, detail)
    return content


@router.post(
    "/api/uploads",
    status_code=status.HTTP_202_ACCEPTED,
    responses=errors(*SIGNED_IN, 409, 413, 415, 422),
)
async def upload_pdf(
    file: Annotated[UploadFile, File(description="the PDF")],
    user: CurrentUser,
    services: ServicesDep,
    reader: ReaderDep,
) -> UploadOut:
    """Keep the PDF and read it in the background: `processing`, then `ready` or `failed`
    (`GET /api/uploads/{id}`). 409 for a PDF the user keeps already or past the count
    quota, 413 past the size limit or the bytes quota, 415 for a file that is not a PDF."""
    settings = services.settings
    content = await _content(file, settings.max_upload_mb * MB)
    name = clean_filename(file.filename)
    quota = Quota(settings.max_uploads_per_user, settings.max_upload_mb_per_user * MB)

    def create() -> Upload:
        with services.sessions() as session:
            upload = create_upload(session, user.id, name, len(content), sha256_of(content), quota)
            session.expunge(upload)
            return upload

    try:
        upload = await run_in_threadpool(create)
    except AlreadyUploaded as e:
        raise HTTPException(status.HTTP_409_CONFLICT, str(e)) from e
    except QuotaExceeded as e:
        code = status.HTTP_409_CONFLICT if e.by_count else status.HTTP_413_CONTENT_TOO_LARGE
        raise HTTPException(code, str(e)) from e
    await run_in_threadpool(reader.start, user.id, upload.id, name, content)
    return _out(upload)


@router.get("/api/uploads", responses=errors(401))
def get_uploads(user: CurrentUser, session: SessionDep) -> Uploads:
    """The user's uploads, the newest first."""
    return Uploads(uploads=[_out(u) for u in list_uploads(session, user.id)])


@router.get("/api/uploads/{upload_id}", responses=errors(401, 404, 422))
def get_one(upload_id: str, user: CurrentUser, session: SessionDep) -> UploadOut:
    """The upload, and how reading it went."""
    try:
        return _out(get_upload(session, user.id, upload_id))
    except UploadNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e


@router.delete(
    "/api/uploads/{upload_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def remove(upload_id: str, user: CurrentUser, session: SessionDep, reader: ReaderDep) -> None:
    """Delete the upload: its PDF, its chunks, vectors and lexical entries (its whole
    index) go with it."""
    try:
        deleted = delete_upload(session, user.id, upload_id)
    except UploadNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
    reader.remove(user.id, deleted.id)


@router.get(
    "/api/uploads/{upload_id}/pdf",
    response_class=FileResponse,
    responses={200: {"content": {"application/pdf": {}}}, **errors(401, 404, 422)},
)
def get_pdf(
    upload_id: str, user: CurrentUser, session: SessionDep, reader: ReaderDep
) -> FileResponse:
    """The upload's PDF as it was sent; 404 once it is gone (failed, linked to the library's
    paper, or deleted)."""
    try:
        upload = get_upload(session, user.id, upload_id)
    except UploadNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(e)) from e
    path = reader.folder(user.id, upload.id) / PDF_FILE
    if upload.status == "failed" or upload.library_id is not None or not path.is_file():
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"upload {upload_id!r} keeps no PDF")
    return FileResponse(
        path,
        media_type="application/pdf",
        filename=upload.filename,
        headers={"Cache-Control": "private, no-store"},
    )
