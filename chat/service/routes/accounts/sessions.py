"""The signed-in user's browser sessions: list them, end one, end all but this one."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, Request, status
from pydantic import BaseModel
from sqlalchemy.orm import Session

from chat.service.access.auth import (
    SessionNotFound,
    end_other_sessions,
    end_session_by_id,
    list_sessions,
)
from chat.service.routes.deps import (
    CurrentUser,
    Services,
    ServicesDep,
    SessionDep,
    cookie_session,
)
from chat.service.routes.errors import SIGNED_IN, errors

router = APIRouter(tags=["auth"])


class SessionInfo(BaseModel):
    id: str
    created_at: datetime
    # Updated at most once a minute.
    last_seen_at: datetime
    user_agent: str
    # The session this request was made with.
    current: bool


def _current_id(request: Request, services: Services, session: Session) -> str | None:
    """The id of the session the request came with; None with an API key."""
    signed_in = cookie_session(request, services, session)
    return signed_in[0].id if signed_in is not None else None


@router.get("/api/auth/sessions", responses=errors(401))
def sessions(
    request: Request, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> list[SessionInfo]:
    """The user's live browser sessions, the one seen last first; `current` marks this one."""
    current = _current_id(request, services, session)
    return [
        SessionInfo(
            id=row.id,
            created_at=row.created_at,
            last_seen_at=row.last_seen_at,
            user_agent=row.user_agent,
            current=row.id == current,
        )
        for row in list_sessions(session, user.id)
    ]


@router.delete(
    "/api/auth/sessions/{session_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def end_one_session(session_id: str, user: CurrentUser, session: SessionDep) -> None:
    """That session ends at once: its cookie stops working on every copy of it."""
    try:
        end_session_by_id(session, user.id, session_id)
    except SessionNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no session {session_id!r}") from e


@router.post(
    "/api/auth/logout-others",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN),
)
def logout_others(
    request: Request, user: CurrentUser, services: ServicesDep, session: SessionDep
) -> None:
    """Every other browser session of the user ends at once; this one and API keys stay."""
    end_other_sessions(session, user.id, keep=_current_id(request, services, session))
