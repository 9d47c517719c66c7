"""Liveness with the index's size, and the Prometheus metrics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Response, status
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from chat.service.metrics import CONTENT_TYPE, render
from chat.service.routes.deps import ServicesDep, SessionDep
from chat.service.routes.errors import errors
from ingest.progress import running_progress

router = APIRouter(tags=["health"])


class PdfProgress(BaseModel):
    """A PDF ingest under way (`paperchat ingest pdfs`): the files it found and has read."""

    total: int | None
    read: int


class LexicalReplicaState(BaseModel):
    """This node's lexical index against a shared catalog's change log."""

    applied: int  # the last change it has applied
    latest: int  # the catalog's latest change
    lag: int  # changes not yet applied


class Health(BaseModel):
    status: str
    papers: int
    chunks: int
    pdfs: PdfProgress | None = None
    # Only when the catalog is shared by several nodes (PostgreSQL).
    lexical_replica: LexicalReplicaState | None = None


@router.get("/api/health", responses=errors(503))
def health(services: ServicesDep, session: SessionDep) -> Health:
    """The index and the database answer: `ok` with the number of papers and chunks,
    `pdfs` while a PDF ingest runs beside the service (null otherwise), and with a catalog
    shared by several nodes, how far this node's lexical index is behind it."""
    try:
        session.execute(text("SELECT 1"))
    except SQLAlchemyError as e:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "database unreachable") from e
    try:
        stats: dict[str, Any] = services.index.catalog.stats()
    except Exception as e:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "index unreachable") from e
    pdfs = running_progress(services.settings.data_dir, "pdfs")
    replica = None
    if services.settings.shared_catalog:
        state = services.index.replica.state()
        replica = LexicalReplicaState(applied=state.applied, latest=state.latest, lag=state.lag)
    return Health(
        status="ok",
        papers=int(stats["papers"]),
        chunks=int(stats["chunks"]),
        pdfs=PdfProgress(**pdfs) if pdfs is not None else None,
        lexical_replica=replica,
    )


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus text format"}},
)
def metrics(services: ServicesDep) -> Response:
    return Response(render(services.metrics.registry), media_type=CONTENT_TYPE)
