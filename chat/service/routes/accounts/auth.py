"""Sign-up, sign-in and sign-out with a server-side session, password changes, who am I."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import anyio
from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from chat.service.access.accounts import (
    MIN_PASSWORD_LENGTH,
    DuplicateEmail,
    InvalidCredentials,
    InvalidEmail,
    WeakPassword,
    authenticate,
    change_password,
    create_user,
    normalize_email,
)
from chat.service.access.auth import (
    CSRF_HEADER,
    SESSION_COOKIE,
    csrf_matches,
    end_all_sessions,
    end_session,
    start_session,
)
from chat.service.access.devices import DEVICE_COOKIE, DEVICE_MAX_AGE_S, Device
from chat.service.access.gate import Busy
from chat.service.access.ratelimit import Decision
from chat.service.routes.deps import (
    CurrentUser,
    Me,
    Services,
    ServicesDep,
    SessionDep,
    client_address,
    cookie_session,
)
from chat.service.routes.errors import BODY, errors
from chat.service.storage.tables import User

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


class LoggedIn(BaseModel):
    user: Me
    csrf_token: str


@dataclass(frozen=True)
class SignedIn:
    """What a new session answers with, and the cookie to set for it."""

    body: LoggedIn
    cookie: str


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


def enforce_login_limits(
    services: Services, client: str, email: str, device: Device | None
) -> None:
    """429 when this address, this address with this email, or this email from browsers
    unknown to its account tried too often lately; a browser the account knows (`device`)
    is counted on its own instead, so no one can lock the owner out by guessing. A request
    turned away by one limit is not counted by the next."""
    enforce_address_limit(services, client)
    per_email = (
        (services.login_limiter, f"login-device:{device.id}:{email}")
        if device is not None
        else (services.login_email_limiter, f"login-email:{email}")
    )
    for limiter, key in ((services.login_limiter, f"login:{client}:{email}"), per_email):
        decision = limiter.hit(key)
        if not decision.allowed:
            raise _too_many(decision)


async def check_password_in_turn(services: Services, check: Callable[[], T]) -> T:
    """Run `check` (argon2) on the password-check gate's threads, once it lets it in."""
    try:
        return await services.password_checks.run(check)
    except Busy as e:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "too many sign-ins at once; retry in a moment",
            headers={"Retry-After": "1"},
        ) from e


def known_device(request: Request, services: Services, email: str) -> Device | None:
    """The browser's device, when it has signed in to the account of `email` before."""
    device = services.signer.devices.read(request.cookies.get(DEVICE_COOKIE))
    return device if device is not None and device.knows(email) else None


def _sign_in(services: Services, email: str, password: str, user_agent: str) -> SignedIn:
    with services.sessions() as session:
        try:
            user = authenticate(session, email, password)
        except InvalidCredentials as e:
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong email or password") from e
        return _signed_in(session, services, user, user_agent)


def _signed_in(session: Session, services: Services, user: User, user_agent: str) -> SignedIn:
    """A new browser session for `user`, in the browser `user_agent` names."""
    issued = start_session(session, services.signer, user, user_agent)
    return SignedIn(LoggedIn(user=Me.of(user), csrf_token=issued.csrf_token), issued.cookie)


def _remember_device(response: Response, request: Request, services: Services, email: str) -> None:
    """Mark this browser as known to the account it just signed in to."""
    devices = services.signer.devices
    cookie = devices.remember(devices.read(request.cookies.get(DEVICE_COOKIE)), email)
    response.set_cookie(
        DEVICE_COOKIE,
        cookie,
        max_age=DEVICE_MAX_AGE_S,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/api/auth",
    )


def _set_cookie(response: Response, request: Request, services: Services, cookie: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        cookie,
        max_age=services.signer.max_age_s,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


def _clear_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


@router.post("/api/auth/login", responses=errors(*BODY, 401, 429, 503))
async def login(
    body: Credentials, request: Request, response: Response, services: ServicesDep
) -> LoggedIn:
    """Sets the session cookie; the CSRF token returned goes in `X-CSRF-Token` from now on.

    Async, so that sign-ins waiting for their password check hold no worker thread.
    """
    client, email = client_address(request), normalize_email(body.email)
    device = known_device(request, services, email)
    await anyio.to_thread.run_sync(enforce_login_limits, services, client, email, device)
    user_agent = request.headers.get("user-agent", "")
    signed_in = await check_password_in_turn(
        services, partial(_sign_in, services, body.email, body.password, user_agent)
    )
    _set_cookie(response, request, services, signed_in.cookie)
    _remember_device(response, request, services, email)
    return signed_in.body


@router.post("/api/auth/logout", status_code=status.HTTP_204_NO_CONTENT, responses=errors(403))
def logout(
    request: Request, response: Response, services: ServicesDep, session: SessionDep
) -> None:
    """Ends this browser session on the server, so its cookie stops working everywhere at
    once, and clears the cookie; a live session must show its CSRF token to do it."""
    signed_in = cookie_session(request, services, session)
    if signed_in is not None:
        data = signed_in[0]
        if not csrf_matches(data, request.headers.get(CSRF_HEADER)):
            raise HTTPException(status.HTTP_403_FORBIDDEN, f"missing or wrong {CSRF_HEADER} header")
        end_session(session, data)
    _clear_cookie(response)


@router.post(
    "/api/auth/logout-all", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 403)
)
def logout_everywhere(
    user: CurrentUser, response: Response, services: ServicesDep, session: SessionDep
) -> None:
    """Sign out everywhere: every browser session of the user ends at once (API keys stay)."""
    end_all_sessions(session, user.id)
    _clear_cookie(response)


class PasswordChange(BaseModel):
    current_password: str = Field(max_length=1024)
    new_password: str = Field(min_length=MIN_PASSWORD_LENGTH, max_length=1024)


def _change_password(
    services: Services, user_id: str, body: PasswordChange, user_agent: str
) -> SignedIn:
    with services.sessions() as session:
        user = session.get(User, user_id)
        if user is None:
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "the user no longer exists")
        try:
            change_password(session, user, body.current_password, body.new_password)
        except InvalidCredentials as e:
            raise HTTPException(status.HTTP_403_FORBIDDEN, "the current password is wrong") from e
        except WeakPassword as e:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
        end_all_sessions(session, user.id)
        return _signed_in(session, services, user, user_agent)


@router.post("/api/auth/password", responses=errors(*BODY, 401, 403, 429, 503))
async def new_password(
    body: PasswordChange,
    request: Request,
    response: Response,
    services: ServicesDep,
    user: CurrentUser,
) -> LoggedIn:
    """Change the password: every browser session ends, and this client gets a new one
    (its cookie and CSRF token); API keys stay. 403 when the current password is wrong."""
    client, device = client_address(request), known_device(request, services, user.email)
    await anyio.to_thread.run_sync(enforce_login_limits, services, client, user.email, device)
    user_agent = request.headers.get("user-agent", "")
    changed = await check_password_in_turn(
        services, partial(_change_password, services, user.id, body, user_agent)
    )
    _set_cookie(response, request, services, changed.cookie)
    return changed.body


@router.get("/api/me", responses=errors(401))
def me(user: CurrentUser) -> Me:
    return Me.of(user)
