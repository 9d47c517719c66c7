"""The signed-in user's API keys: create (shown once), list, revoke."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel, Field

from chat.service.access.accounts import (
    DEFAULT_KEY_NAME,
    MAX_KEY_NAME_LENGTH,
    KeyNotFound,
    create_api_key,
    list_api_keys,
    revoke_api_key,
)
from chat.service.routes.deps import CurrentUser, SessionDep
from chat.service.routes.errors import BODY, SIGNED_IN, errors

router = APIRouter(tags=["keys"])


class KeyRequest(BaseModel):
    name: str = Field(default=DEFAULT_KEY_NAME, max_length=MAX_KEY_NAME_LENGTH)


class NewKey(BaseModel):
    id: str
    name: str
    key: str


class KeyInfo(BaseModel):
    id: str
    name: str
    created_at: datetime
    last_used_at: datetime | None


@router.post("/api/keys", status_code=status.HTTP_201_CREATED, responses=errors(*BODY, *SIGNED_IN))
def create_key(body: KeyRequest, user: CurrentUser, session: SessionDep) -> NewKey:
    """A new key; `key` is shown here and never again."""
    new_key = create_api_key(session, user, body.name)
    return NewKey(id=new_key.record.id, name=new_key.record.name, key=new_key.plaintext)


@router.get("/api/keys", responses=errors(401))
def list_keys(user: CurrentUser, session: SessionDep) -> list[KeyInfo]:
    return [
        KeyInfo(id=k.id, name=k.name, created_at=k.created_at, last_used_at=k.last_used_at)
        for k in list_api_keys(session, user)
    ]


@router.delete(
    "/api/keys/{key_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(*SIGNED_IN, 404, 422),
)
def revoke_key(key_id: str, user: CurrentUser, session: SessionDep) -> None:
    """The key stops working at once."""
    try:
        revoke_api_key(session, user, key_id)
    except KeyNotFound as e:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no API key {key_id!r}") from e
