"""The signed-in user's follows (researchers, categories, saved searches, papers), the alerts
they bring, and the private feed's token.

Alerts are computed when they are asked for (`chat/service/storage/alerts.py`):
every worker reads the same catalog, which any ingest process writes, so a
paper is an alert as soon as its ingest commits, without a task to schedule.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Body, HTTPException, Request, Response, status
from pydantic import BaseModel, Field

from chat.library.follows import InvalidFollow, follow_target
from chat.service.routes.deps import CurrentUser, ServicesDep, SessionDep
from chat.service.routes.errors import BODY, SIGNED_IN, errors
from chat.service.storage.alerts import (
    list_alerts,
    mark_read,
    refresh_alerts,
    start_rowid,
    unread_count,
)
from chat.service.storage.digests import digest_frequency, set_digest_frequency
from chat.service.storage.follows import (
    TooManyFollows,
    add_follow,
    delete_follow,
    list_follows,
    new_feed_token,
    revoke_feed_token,
)
from chat.service.storage.watches import (
    mark_watch_alerts_read,
    refresh_watches,
    unread_watch_alerts,
)
from chat.service.web.address import site_address

router = APIRouter(tags=["follows"])

Kind = Literal["researcher", "category", "search", "paper"]


class FollowRequest(BaseModel):
    kind: Kind
    value: str = Field(
        max_length=1000,
        description="an author name as the author pages write it, an arXiv category (cs.CL), "
        "a search's words (a paper's title or abstract must hold each), or a paper id",
    )


class NewFollow(BaseModel):
    id: str


class FollowOut(BaseModel):
    id: str
    kind: Kind
    value: str
    created_at: datetime


class Follows(BaseModel):
    follows: list[FollowOut]


class AlertOut(BaseModel):
    paper_id: str
    follow_id: str
    read: bool
    version: str = Field(description="a followed paper's new version; '' for a new paper")
    created_at: datetime


class Alerts(BaseModel):
    alerts: list[AlertOut]
    unread: int = Field(
        description="the unread alerts, and the unread news of the user's saved questions "
        "(listed by /api/watches)"
    )


class ReadRequest(BaseModel):
    paper_ids: list[str] | None = Field(
        default=None, max_length=1000, description="the papers read; all of them when absent"
    )


class ReadResult(BaseModel):
    marked: int = Field(description="alerts that were unread and are read now")
    unread: int


class DigestChoice(BaseModel):
    frequency: Literal["off", "daily", "weekly"] = Field(
        description="how often the e-mail digest of unread alerts is sent (when the server "
        "has PAPERCHAT_SMTP_URL)"
    )


class FeedAddress(BaseModel):
    token: str
    url: str


@router.post(
    "/api/follows",
    status_code=status.HTTP_201_CREATED,
    responses={
        200: {"model": NewFollow, "description": "already followed: the follow's id"},
        **errors(*BODY, *SIGNED_IN, 404),
    },
)
def follow(
    body: FollowRequest,
    user: CurrentUser,
    services: ServicesDep,
    session: SessionDep,
    response: Response,
) -> NewFollow:
    """Follow something: the papers added to the index from now on that it takes become
    alerts (for a paper: its new versions). 200 with the same id when already followed;
    404 for an author, category or paper not in the index; 422 for what is no arXiv
    category, or past `PAPERCHAT_MAX_FOLLOWS` (`PAPERCHAT_MAX_CATEGORY_FOLLOWS`)."""
    catalog = services.index.catalog
    try:
        target = follow_target(catalog, body.kind, body.value)
        made, created = add_follow(
            session,
            user.id,
            target,
            start_rowid(catalog),
            max_follows=services.settings.max_follows,
            max_category_follows=services.settings.max_category_follows,
        )
    except (InvalidFollow, TooManyFollows) as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    if not created:
        response.status_code = status.HTTP_200_OK
    return NewFollow(id=made.id)


@router.get("/api/follows", responses=errors(401))
def get_follows(user: CurrentUser, session: SessionDep) -> Follows:
    """The oldest first."""
    return Follows(
        follows=[
            FollowOut(id=f.id, kind=f.kind, value=f.value, created_at=f.created_at)
            for f in list_follows(session, user.id)
        ]
    )


@router.delete(
    "/api/follows/{follow_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def unfollow(follow_id: str, user: CurrentUser, session: SessionDep) -> None:
    """Its alerts go with it."""
    if not delete_follow(session, user.id, follow_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no follow {follow_id!r}")


@router.get("/api/alerts", responses=errors(401))
def get_alerts(user: CurrentUser, services: ServicesDep, session: SessionDep) -> Alerts:
    """The papers new to the user's follows, the newest first, read or not."""
    refresh_alerts(session, services.index.catalog, user.id)
    refresh_watches(session, services.index.watcher, user.id)
    return Alerts(
        alerts=[
            AlertOut(
                paper_id=a.paper_id,
                follow_id=a.follow_id,
                read=a.read,
                version=a.version,
                created_at=a.created_at,
            )
            for a in list_alerts(session, user.id)
        ],
        unread=_unread(session, user.id),
    )


def _unread(session: SessionDep, user_id: str) -> int:
    return unread_count(session, user_id) + unread_watch_alerts(session, user_id)


@router.post("/api/alerts/read", responses=errors(*BODY, *SIGNED_IN))
def read_alerts(
    user: CurrentUser,
    session: SessionDep,
    body: Annotated[ReadRequest | None, Body()] = None,
) -> ReadResult:
    """Mark the alerts (and the saved questions' news) of `paper_ids` read, or every one
    without a body."""
    paper_ids = body.paper_ids if body else None
    marked = mark_watch_alerts_read(session, user.id, paper_ids)
    marked += mark_read(session, user.id, paper_ids)
    return ReadResult(marked=marked, unread=_unread(session, user.id))


@router.post(
    "/api/feeds/private",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*SIGNED_IN),
)
def new_private_feed(
    request: Request, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> FeedAddress:
    """A new address of the user's private feed (the papers new to their follows); an
    earlier address stops working. The token is shown here and never again."""
    token = new_feed_token(session, user.id)
    path = request.app.url_path_for("private_feed", token=token)
    url = site_address(request, services.settings) + str(path)
    return FeedAddress(token=token, url=url)


@router.delete(
    "/api/feeds/private",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404),
)
def revoke_private_feed(user: CurrentUser, session: SessionDep) -> None:
    """The private feed's address stops working."""
    if not revoke_feed_token(session, user.id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no private feed to revoke")


@router.get("/api/digest", responses=errors(401))
def get_digest(user: CurrentUser, session: SessionDep) -> DigestChoice:
    """How often the user is sent the e-mail digest; "off" until they choose."""
    return DigestChoice.model_validate({"frequency": digest_frequency(session, user.id)})


@router.put("/api/digest", responses=errors(*BODY, *SIGNED_IN))
def put_digest(body: DigestChoice, user: CurrentUser, session: SessionDep) -> DigestChoice:
    set_digest_frequency(session, user.id, body.frequency)
    return body
