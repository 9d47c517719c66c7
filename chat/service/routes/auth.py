"""Sign-up, sign-in and sign-out with a session cookie, and who am I."""

from __future__ import annotations

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
from chat.service.routes.deps import (
    CurrentUser,
    ServicesDep,
    SessionDep,
    client_address,
    session_data,
)
from chat.service.routes.errors import BODY, errors
from chat.service.tables import User

router = APIRouter(tags=["auth"])


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
    "/api/auth/register", status_code=status.HTTP_201_CREATED, responses=errors(*BODY, 403, 409)
)
def register(body: Registration, services: ServicesDep, session: SessionDep) -> NewUser:
    """Open self-registration, when `PAPERCHAT_ALLOW_SIGNUP` is on."""
    if not services.settings.allow_signup:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "sign-up is closed on this server")
    try:
        user = create_user(session, body.email, body.password)
    except DuplicateEmail as e:
        raise HTTPException(status.HTTP_409_CONFLICT, "that email is already registered") from e
    except (InvalidEmail, WeakPassword) as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e
    return NewUser(id=user.id, email=user.email)


@router.post("/api/auth/login", responses=errors(*BODY, 401, 429))
def login(
    body: Credentials,
    request: Request,
    response: Response,
    services: ServicesDep,
    session: SessionDep,
) -> LoggedIn:
    """Sets the session cookie; the CSRF token returned goes in `X-CSRF-Token` from now on."""
    client = client_address(request)
    decision = services.login_limiter.hit(f"login:{client}:{normalize_email(body.email)}")
    if not decision.allowed:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"too many sign-in attempts; retry in {decision.retry_after_s} s",
            headers={"Retry-After": str(decision.retry_after_s)},
        )
    try:
        user = authenticate(session, body.email, body.password)
    except InvalidCredentials as e:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong email or password") from e
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
