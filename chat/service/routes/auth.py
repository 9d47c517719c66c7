"""Sign-up, sign-in and sign-out with a session cookie, and who am I."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

import anyio
from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, Field

from chat.service.accounts import (
    MIN_PASSWORD_LENGTH,
    DuplicateEmail,
    InvalidCredentials,
    InvalidEmail,
    WeakPassword,
    authenticate,
    create_user,
    normalize_email,
)
from chat.service.auth import CSRF_HEADER, SESSION_COOKIE, csrf_matches
from chat.service.gate import Busy
from chat.service.ratelimit import Decision
from chat.service.routes.deps import (
    CurrentUser,
    Services,
    ServicesDep,
    client_address,
    session_data,
)
from chat.service.routes.errors import BODY, errors
from chat.service.tables import User

router = APIRouter(tags=["auth"])

T = TypeVar("T")


class Credentials(BaseModel):
    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)


class Registration(BaseModel):
    email: str = Field(max_length=320, pattern=r"^[^@\s]+@\S+$")
    password: str = Field(min_length=MIN_PASSWORD_LENGTH, max_length=1024)


class NewUser(BaseModel):
    id: str
    email: str


class Me(BaseModel):
    id: str
    email: str
    is_admin: bool

    @classmethod
    def of(cls, user: User) -> Me:
        return cls(id=user.id, email=user.email, is_admin=user.is_admin)


class LoggedIn(BaseModel):
    user: Me
    csrf_token: str


@router.post(
    "/api/auth/register",
    status_code=status.HTTP_201_CREATED,
    responses=errors(*BODY, 403, 409, 429, 503),
)
async def register(body: Registration, request: Request, services: ServicesDep) -> NewUser:
    """Open self-registration, when `PAPERCHAT_ALLOW_SIGNUP` is on.

    Hashing the password is as costly as checking one: the same limits and gate apply.
    """
    if not services.settings.allow_signup:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "sign-up is closed on this server")
    await anyio.to_thread.run_sync(enforce_address_limit, services, client_address(request))
    user = await check_password_in_turn(
        services, partial(_create_user, services, body.email, body.password)
    )
    return NewUser(id=user.id, email=user.email)


def _create_user(services: Services, email: str, password: str) -> User:
    with services.sessions() as session:
        try:
            return create_user(session, email, password)
        except DuplicateEmail as e:
            raise HTTPException(status.HTTP_409_CONFLICT, "that email is already registered") from e
        except (InvalidEmail, WeakPassword) as e:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e


def _too_many(decision: Decision) -> HTTPException:
    return HTTPException(
        status.HTTP_429_TOO_MANY_REQUESTS,
        f"too many sign-in attempts; retry in {decision.retry_after_s} s",
        headers={"Retry-After": str(decision.retry_after_s)},
    )


def enforce_address_limit(services: Services, client: str) -> None:
    """429 when this address tried to sign in or up too often lately, whatever the email."""
    decision = services.login_address_limiter.hit(f"login:{client}")
    if not decision.allowed:
        raise _too_many(decision)


def enforce_login_limits(services: Services, client: str, email: str) -> None:
    """429 when this address, or this address with this email, tried too often lately."""
    enforce_address_limit(services, client)
    decision = services.login_limiter.hit(f"login:{client}:{email}")
    if not decision.allowed:
        raise _too_many(decision)


async def check_password_in_turn(services: Services, check: Callable[[], T]) -> T:
    """Run `check` (argon2) on a worker thread once the password-check gate lets it in."""
    try:
        async with services.password_checks.turn():
            return await anyio.to_thread.run_sync(check)
    except Busy as e:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "too many sign-ins at once; retry in a moment",
            headers={"Retry-After": "1"},
        ) from e


def _authenticate(services: Services, email: str, password: str) -> User:
    with services.sessions() as session:
        try:
            return authenticate(session, email, password)
        except InvalidCredentials as e:
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong email or password") from e


@router.post("/api/auth/login", responses=errors(*BODY, 401, 429, 503))
async def login(
    body: Credentials, request: Request, response: Response, services: ServicesDep
) -> LoggedIn:
    """Sets the session cookie; the CSRF token returned goes in `X-CSRF-Token` from now on.

    Async, so that sign-ins waiting for their password check hold no worker thread.
    """
    client, email = client_address(request), normalize_email(body.email)
    await anyio.to_thread.run_sync(enforce_login_limits, services, client, email)
    user = await check_password_in_turn(
        services, partial(_authenticate, services, body.email, body.password)
    )
    issued = services.signer.issue(user.id)
    response.set_cookie(
        SESSION_COOKIE,
        issued.cookie,
        max_age=services.signer.max_age_s,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return LoggedIn(user=Me.of(user), csrf_token=issued.csrf_token)


@router.post("/api/auth/logout", status_code=status.HTTP_204_NO_CONTENT, responses=errors(403))
def logout(request: Request, response: Response, services: ServicesDep) -> None:
    """Clears the session cookie; a live session must show its CSRF token to do it."""
    data = session_data(request, services)
    if data is not None and not csrf_matches(data, request.headers.get(CSRF_HEADER)):
        raise HTTPException(status.HTTP_403_FORBIDDEN, f"missing or wrong {CSRF_HEADER} header")
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


@router.get("/api/me", responses=errors(401))
def me(user: CurrentUser) -> Me:
    return Me.of(user)
