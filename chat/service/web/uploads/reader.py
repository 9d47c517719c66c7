"""The reader of a user's own upload: `/uploads/{id}/read` and its page images, text layers
and cited passages under `/uploads/{id}/`, drawn by the library reader's code from the
upload's own PDF and index.

Only the owner, by browser session or API key, reaches them: another user, or no user,
gets the 404 of an unknown id. Every answer is `Cache-Control: private, no-store` and
`noindex`; nothing here is linked from the site's public pages. An upload the library
holds (`library_id`) is read in the library paper's reader, where the page sends its owner.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Final
from urllib.parse import quote as url_quote

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session

from chat.library.papers import PaperNotFound
from chat.service.access.accounts import InvalidApiKey, verify_api_key_record
from chat.service.access.auth import bearer_token
from chat.service.routes.deps import ServicesDep, SessionDep, cookie_session
from chat.service.storage.tables import Upload, User
from chat.service.storage.uploads import UploadNotFound, get_upload
from chat.service.uploads.reading import PDF_FILE, UploadReader
from chat.service.web.papers.annotations import Annotations, PageAnnotations, PaperSkim
from chat.service.web.papers.focus import MAX_QUOTE_CHARS
from chat.service.web.papers.pdfpages import PdfFile, render_width
from chat.service.web.papers.reader import (
    MAX_WIDTH,
    RENDER_FAILURES,
    Evidence,
    EvidenceBox,
    TextLayer,
    focus_boxes,
    render_check,
    render_failure,
)
from chat.service.web.rendering import render_page
from chat.service.web.uploads.annotations import UploadAnnotations
from ingest.index.catalog import Catalog
from ingest.uploads import CATALOG_FILE

router = APIRouter(tags=["reader"])

PRIVATE: Final = {"Cache-Control": "private, no-store", "X-Robots-Tag": "noindex, nofollow"}


def _owner(request: Request, services: ServicesDep, session: Session) -> User | None:
    """The user of the API key or the browser session; None for none (or a refused key)."""
    token = bearer_token(request.headers.get("Authorization"))
    if token is not None:
        try:
            return verify_api_key_record(session, token)[1]
        except InvalidApiKey:
            return None
    signed_in = cookie_session(request, services, session)
    return None if signed_in is None else signed_in[1]


def _not_found(upload_id: str) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, f"no upload {upload_id!r}", PRIVATE)


def _upload(request: Request, services: ServicesDep, session: Session, upload_id: str) -> Upload:
    """The signed-in user's upload `upload_id`; the 404 of an unknown id for anyone else."""
    user = _owner(request, services, session)
    if user is None:
        raise _not_found(upload_id)
    try:
        return get_upload(session, user.id, upload_id)
    except UploadNotFound as e:
        raise _not_found(upload_id) from e


def _failure(error: Exception) -> HTTPException:
    """The library reader's answer to a render that failed, kept private too."""
    failed = render_failure(error)
    failed.headers = {**(failed.headers or {}), **PRIVATE}
    return failed


def _pdf(request: Request, upload: Upload) -> PdfFile:
    """The PDF the upload keeps for its own reader; 404 while it is read, once it failed, or
    when the library's paper is read instead."""
    if upload.status != "ready" or upload.doc_id is None or upload.library_id is not None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"upload {upload.id!r} has no reader of its own", PRIVATE
        )
    reader: UploadReader = request.app.state.uploads
    path = reader.folder(upload.user_id, upload.id) / PDF_FILE
    return PdfFile(f"upload:{upload.id}", path, upload.sha256)


@router.get("/uploads/{upload_id}/read", include_in_schema=False)
def upload_page(
    upload_id: str, request: Request, services: ServicesDep, session: SessionDep
) -> Response:
    """The upload's reader: its pages, and the passage `?chunk=` (with `&quote=`) marked."""
    upload = _upload(request, services, session, upload_id)
    if upload.library_id is not None:
        paper = url_quote(upload.library_id, safe="/")
        return RedirectResponse(f"/papers/{paper}#reader", status.HTTP_303_SEE_OTHER, PRIVATE)
    pdf = _pdf(request, upload)
    try:
        info = services.pdf_pages.info(pdf)
    except RENDER_FAILURES as e:
        raise _failure(e) from e
    response = render_page(
        "upload.html",
        upload=upload,
        title=upload.title or upload.filename,
        paper={"id": upload.doc_id},
        reader=info,
        reader_base=f"/uploads/{upload.id}",
        upload_id=upload.id,
    )
    response.headers.update(PRIVATE)
    return response


@router.get("/uploads/{upload_id}/pages/{page:int}.webp", include_in_schema=False)
def upload_page_image(
    upload_id: str,
    page: int,
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    width: Annotated[int, Query(ge=1, le=MAX_WIDTH)] = 960,
) -> Response:
    """One page of the upload's PDF as WebP, about `width` pixels wide."""
    pdf = _pdf(request, _upload(request, services, session, upload_id))
    try:
        body, _version = services.pdf_pages.image(
            pdf, page, render_width(width), render_check(request, services)
        )
    except RENDER_FAILURES as e:
        raise _failure(e) from e
    headers = {**PRIVATE, "X-Content-Type-Options": "nosniff"}
    headers["Cross-Origin-Resource-Policy"] = "same-origin"
    return Response(body, media_type="image/webp", headers=headers)


@router.get("/uploads/{upload_id}/pages/{page:int}.json", include_in_schema=False)
def upload_text_layer(
    upload_id: str,
    page: int,
    request: Request,
    response: Response,
    services: ServicesDep,
    session: SessionDep,
) -> TextLayer:
    """The page's lines with their boxes (fractions of the page from its top left)."""
    pdf = _pdf(request, _upload(request, services, session, upload_id))
    try:
        layer = services.pdf_pages.text_layer(pdf, page, render_check(request, services))
    except RENDER_FAILURES as e:
        raise _failure(e) from e
    response.headers.update(PRIVATE)
    return TextLayer.model_validate(layer)


@contextmanager
def _catalog(request: Request, upload: Upload) -> Iterator[Catalog]:
    reader: UploadReader = request.app.state.uploads
    path = reader.folder(upload.user_id, upload.id) / CATALOG_FILE
    if not path.is_file():
        raise _not_found(upload.id)
    catalog = Catalog(path)
    try:
        yield catalog
    finally:
        catalog.close()


@router.get("/uploads/{upload_id}/evidence", include_in_schema=False)
def upload_evidence(
    upload_id: str,
    chunk: Annotated[str, Query(min_length=1, max_length=300)],
    request: Request,
    response: Response,
    services: ServicesDep,
    session: SessionDep,
    quote: Annotated[str | None, Query(min_length=1, max_length=MAX_QUOTE_CHARS)] = None,
) -> Evidence:
    """Where a passage of the upload's index is printed, and with `quote` (words an answer
    quoted from it) where those words are inside it."""
    upload = _upload(request, services, session, upload_id)
    pdf = _pdf(request, upload)
    with _catalog(request, upload) as catalog:
        row = catalog.chunk_rows([chunk]).get(chunk)
        boxes = catalog.chunk_boxes(chunk) if row is not None else None
    if row is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no passage {chunk!r} in the upload", PRIVATE
        )
    marked = None
    if quote is not None and boxes:
        try:
            marked = focus_boxes(pdf, quote, boxes, request, services)
        except HTTPException as e:  # a render that failed, as the library's reader says it
            e.headers = {**(e.headers or {}), **PRIVATE}
            raise
    response.headers.update(PRIVATE)
    return Evidence(
        chunk_id=row.id,
        paper_id=row.paper_id,
        kind="fulltext",  # an upload's page has no abstract to mark: its pages show it
        page=row.page_start or None,
        boxes=None if boxes is None else [EvidenceBox.model_validate(b.as_json()) for b in boxes],
        abstract=None,
        focus=None if marked is None else [EvidenceBox.model_validate(b.as_json()) for b in marked],
    )


def _kept_annotations(request: Request, services: ServicesDep) -> UploadAnnotations:
    """The app's kept annotations of uploads, made when first needed."""
    state = request.app.state
    kept: UploadAnnotations | None = getattr(state, "upload_annotations", None)
    if kept is None:
        kept = state.upload_annotations = UploadAnnotations(services.pdf_pages)
    return kept


@contextmanager
def _annotations(request: Request, services: ServicesDep, upload: Upload) -> Iterator[Annotations]:
    """The library reader's annotations, read from the upload's own PDF and index."""
    pdf = _pdf(request, upload)
    reader: UploadReader = request.app.state.uploads
    path = reader.folder(upload.user_id, upload.id) / CATALOG_FILE
    if not path.is_file():
        raise _not_found(upload.id)
    with _kept_annotations(request, services).of(pdf, path) as annotations:
        try:
            yield annotations
        except PaperNotFound as e:
            raise _not_found(upload.id) from e
        except RENDER_FAILURES as e:
            raise _failure(e) from e


@router.get("/uploads/{upload_id}/pages/{page:int}/annotations", include_in_schema=False)
def upload_page_annotations(
    upload_id: str,
    page: int,
    request: Request,
    response: Response,
    services: ServicesDep,
    session: SessionDep,
) -> PageAnnotations:
    """What the reader draws over a page of the upload: its citation marks with the entries
    of its reference list they name, the terms it defines, the sentences skimming tints."""
    upload = _upload(request, services, session, upload_id)
    with _annotations(request, services, upload) as annotations:
        found = annotations.page(upload.doc_id or "", page, render_check(request, services))
    response.headers.update(PRIVATE)
    return found


@router.get("/uploads/{upload_id}/skim", include_in_schema=False)
def upload_skim(
    upload_id: str, request: Request, response: Response, services: ServicesDep, session: SessionDep
) -> PaperSkim:
    """The upload's sentences that state its goal, method, results and limitations."""
    upload = _upload(request, services, session, upload_id)
    with _annotations(request, services, upload) as annotations:
        found = annotations.skim(upload.doc_id or "", render_check(request, services))
    response.headers.update(PRIVATE)
    return found
