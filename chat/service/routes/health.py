"""Liveness with the index's size and the PDF reading's counts, the PDFs that reading left
out (for signed-in users), and the Prometheus metrics."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Response, status
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from chat.service.metrics import CONTENT_TYPE, render
from chat.service.routes.deps import CurrentUser, ServicesDep, SessionDep
from chat.service.routes.errors import errors
from ingest.runs import RunState, run_state

router = APIRouter(tags=["health"])


class PdfReading(BaseModel):
    """The latest PDF run (`paperchat ingest pdfs`), under way or ended: the files it found,
    read and could not read; `error` says why a run stopped early (an exception, or its
    process gone). Before any run: every count 0, `running` false, `error` null."""

    total: int | None  # counted before the run reads; null for a source not counted ahead
    read: int
    failed: int
    error: str | None
    running: bool

    @classmethod
    def of(cls, state: RunState) -> PdfReading:
        return cls(
            total=state.total,
            read=state.read,
            failed=len(state.failed),
            error=state.error,
            running=state.running,
        )


class NotRead(BaseModel):
    """A PDF the run left out of the index, with its reason."""

    source: str
    reason: str


class PdfRun(PdfReading):
    """The latest PDF run with every PDF it left out, and when it started and ended."""

    not_read: list[NotRead]
    started_at: datetime | None
    ended_at: datetime | None  # null while it runs, and for a run whose process is gone


class LexicalReplicaState(BaseModel):
    """This node's lexical index against a shared catalog's change log."""

    applied: int  # the last change it has applied
    latest: int  # the catalog's latest change
    lag: int  # changes not yet applied


class Health(BaseModel):
    status: str
    papers: int
    chunks: int
    pdfs: PdfReading
    # Only when the catalog is shared by several nodes (PostgreSQL).
    lexical_replica: LexicalReplicaState | None = None


@router.get("/api/health", responses=errors(503))
def health(services: ServicesDep, session: SessionDep) -> Health:
    """The index and the database answer: `ok` with the number of papers and chunks, the
    latest PDF run's counts (`pdfs`), and with a catalog shared by several nodes, how far
    this node's lexical index is behind it."""
    try:
        session.execute(text("SELECT 1"))
    except SQLAlchemyError as e:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "database unreachable") from e
    try:
        stats: dict[str, Any] = services.index.catalog.stats()
    except Exception as e:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "index unreachable") from e
    replica = None
    if services.settings.shared_catalog:
        state = services.index.replica.state()
        replica = LexicalReplicaState(applied=state.applied, latest=state.latest, lag=state.lag)
    return Health(
        status="ok",
        papers=int(stats["papers"]),
        chunks=int(stats["chunks"]),
        pdfs=PdfReading.of(run_state(services.settings.data_dir, "pdfs")),
        lexical_replica=replica,
    )


@router.get("/api/ingest/pdfs", responses=errors(401))
def pdf_run(user: CurrentUser, services: ServicesDep) -> PdfRun:
    """The latest PDF run as in `/api/health`, with every PDF it left out and its reason."""
    state = run_state(services.settings.data_dir, "pdfs")
    return PdfRun(
        **PdfReading.of(state).model_dump(),
        not_read=[NotRead(source=s.source, reason=s.reason) for s in state.failed],
        started_at=state.started_at,
        ended_at=state.ended_at,
    )


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus text format"}},
)
def metrics(services: ServicesDep) -> Response:
    return Response(render(services.metrics.registry), media_type=CONTENT_TYPE)
