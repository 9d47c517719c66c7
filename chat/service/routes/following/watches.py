"""Questions that keep watch: the signed-in user saves a question with its scope, and the
papers that arrive later and answer it anew become its news (`chat/rag/watching.py`).

News is computed when it is asked for, here and wherever alerts are shown (Latest for
you, the digest, the private feed): `chat/service/storage/watches.py`.
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel, Field

from chat.service.routes.deps import (
    AuthorName,
    ChattingUser,
    CurrentUser,
    MessageText,
    PaperId,
    ServicesDep,
    SessionDep,
    check_question,
)
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.watch_tables import Watch, WatchAlert
from chat.service.storage.watches import (
    Scope,
    TooManyWatches,
    add_watch,
    delete_watch,
    get_watch,
    list_watch_alerts,
    list_watches,
    refresh_watches,
    scope_filters,
    start_rowid,
)

router = APIRouter(tags=["watches"])


class WatchRequest(BaseModel):
    question: MessageText = Field(
        min_length=1,
        description="the question; at most PAPERCHAT_MAX_QUESTION_CHARS characters",
    )
    paper_ids: list[PaperId] = Field(default_factory=list, max_length=50)
    author: AuthorName | None = Field(
        default=None, description="only this author's papers (404 when no indexed author)"
    )
    collection_id: str | None = Field(
        default=None,
        max_length=64,
        description="only the papers of this collection of the user's (404 for another "
        "user's); papers added to it later count as new",
    )


class ScopeOut(BaseModel):
    paper_ids: list[str]
    author: str | None
    collection_id: str | None


class NewsOut(BaseModel):
    paper_id: str
    chunk_id: str
    sentence: str = Field(description="the sentence of the new paper that answers")
    citation: str = Field(description="how answers cite the paper: [arXiv:ID] or [doc:ID]")
    read: bool
    created_at: datetime


class WatchOut(BaseModel):
    id: str
    question: str
    scope: ScopeOut
    sources: int = Field(description="the passages the answer stood on when it was saved")
    created_at: datetime
    news: list[NewsOut] = Field(description="the new evidence found since, the newest first")


class Watches(BaseModel):
    watches: list[WatchOut]


def _news(alert: WatchAlert) -> NewsOut:
    return NewsOut(
        paper_id=alert.paper_id,
        chunk_id=alert.chunk_id,
        sentence=alert.sentence,
        citation=alert.citation,
        read=alert.read,
        created_at=alert.created_at,
    )


def _watch_out(watch: Watch, news: list[WatchAlert]) -> WatchOut:
    return WatchOut(
        id=watch.id,
        question=watch.question,
        scope=ScopeOut.model_validate(Scope.of(watch.scope).data()),
        sources=len(watch.chunk_ids),
        created_at=watch.created_at,
        news=[_news(alert) for alert in news],
    )


@router.post(
    "/api/watches",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*BODY, *SIGNED_IN, 404, 429),
)
def save_watch(
    body: WatchRequest, user: ChattingUser, services: ServicesDep, session: SessionDep
) -> WatchOut:
    """Keep watch on a question: it is answered now (the answer kept as its baseline), and
    asked again when papers arrive; a new paper's passage that ranks above the saved
    answer's and quotes a sentence it did not becomes news. 404 for a collection not the
    user's or an unknown author; 422 for a blank or too long question, or past
    `MAX_WATCHES`."""
    check_question(body.question, services.limits)
    question = body.question.strip()
    scope = Scope(tuple(body.paper_ids), body.author or None, body.collection_id)
    catalog = services.index.catalog
    filters = scope_filters(session, catalog, user.id, scope)
    baseline = services.index.watcher.baseline(question, filters)
    try:
        made = add_watch(session, user.id, question, scope, baseline, start_rowid(catalog))
    except TooManyWatches as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    return _watch_out(made, [])


def _grouped(session: SessionDep, user_id: str) -> dict[str, list[WatchAlert]]:
    found: dict[str, list[WatchAlert]] = {}
    for alert, _ in list_watch_alerts(session, user_id):
        found.setdefault(alert.watch_id, []).append(alert)
    return found


@router.get("/api/watches", responses=errors(401))
def get_watches(user: CurrentUser, services: ServicesDep, session: SessionDep) -> Watches:
    """The user's saved questions, the oldest first, each with its news."""
    refresh_watches(session, services.index.watcher, user.id)
    news = _grouped(session, user.id)
    return Watches(
        watches=[_watch_out(w, news.get(w.id, [])) for w in list_watches(session, user.id)]
    )


@router.get("/api/watches/{watch_id}", responses=errors(401, 404, 422))
def get_one_watch(
    watch_id: str, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> WatchOut:
    """One saved question with its news; 404 for another user's."""
    if get_watch(session, user.id, watch_id) is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no saved question {watch_id!r}")
    refresh_watches(session, services.index.watcher, user.id)
    found = get_watch(session, user.id, watch_id)
    if found is None:  # deleted meanwhile
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no saved question {watch_id!r}")
    return _watch_out(found, _grouped(session, user.id).get(watch_id, []))


@router.delete(
    "/api/watches/{watch_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def stop_watching(watch_id: str, user: CurrentUser, session: SessionDep) -> None:
    """Its news goes with it; 404 for another user's."""
    if not delete_watch(session, user.id, watch_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no saved question {watch_id!r}")
