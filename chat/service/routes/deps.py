"""What routes receive: the app's services, a database session and the signed-in user;
and the request fields and checks more than one route reads. Routes import each other
never: what two of them share is here (or, for error answers, in `errors`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from datetime import date
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, status
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    StringConstraints,
    WithJsonSchema,
)
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from chat.library.authors import MAX_AUTHOR_CHARS, author_filter
from chat.library.papers import PaperNotFound, paper_details
from chat.rag.answer import answering
from chat.service.access.accounts import InvalidApiKey, verify_api_key_record
from chat.service.access.admission import Admission
from chat.service.access.auth import (
    CSRF_HEADER,
    SESSION_COOKIE,
    UNSAFE_METHODS,
    SessionData,
    SessionSigner,
    bearer_token,
    csrf_matches,
    find_session,
)
from chat.service.access.gate import Gate
from chat.service.access.ratelimit import RateLimiter, StreamSlots, over_limit
from chat.service.metrics import Metrics
from chat.service.storage.collections import get_collection, paper_ids
from chat.service.storage.tables import User
from chat.service.streams import RunningTurns
from chat.service.web.papers.annotations import Annotations
from chat.service.web.papers.pdfpages import PdfPages
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.records import normalise_paper_id
from ingest.text import check_text


@dataclass(frozen=True)
class Limits:
    """Request limits the API enforces, as the settings give them (the defaults are there)."""

    max_question_chars: int
    max_body_bytes: int
    max_streams_per_user: int
    ping_interval_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(
            max_question_chars=settings.max_question_chars,
            max_body_bytes=settings.max_body_bytes,
            max_streams_per_user=settings.max_streams_per_user,
            ping_interval_s=settings.ping_interval_s,
        )


@dataclass
class Services:
    """Everything the app factory builds, handed to routes through `ServicesDep`."""

    settings: Settings
    limits: Limits
    engine: Engine
    sessions: sessionmaker[Session]
    index: Wiring
    signer: SessionSigner
    chat_limiter: RateLimiter
    api_limiter: RateLimiter
    login_limiter: RateLimiter
    login_address_limiter: RateLimiter
    login_email_limiter: RateLimiter
    search_limiter: RateLimiter
    render_limiter: RateLimiter
    password_checks: Gate
    slots: StreamSlots
    admission: Admission
    turns: RunningTurns
    metrics: Metrics
    pdf_pages: PdfPages
    annotations: Annotations


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_session(services: ServicesDep) -> Iterator[Session]:
    with services.sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]

_UNAUTHENTICATED = HTTPException(
    status.HTTP_401_UNAUTHORIZED,
    detail="sign in, or send an API key as 'Authorization: Bearer <key>'",
    headers={"WWW-Authenticate": "Bearer"},
)


def release_connection(session: Session) -> None:
    """End the session's read transaction: its pooled connection is free again at once.

    The request's session lives as long as its response, and a chat answer
    streams for seconds after the route returned; the next dependency may also
    wait for a worker thread. Holding the connection meanwhile ran the pool
    (15) dry under load. The user stays loaded: sessions do not expire on commit.
    """
    session.commit()


def _user_from_key(request: Request, session: Session, token: str) -> User:
    """The key's owner; the key's id is kept on the request, for its own rate limit."""
    try:
        key, user = verify_api_key_record(session, token)
    except InvalidApiKey as e:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="invalid or revoked API key",
            headers={"WWW-Authenticate": "Bearer"},
        ) from e
    request.state.api_key_id = key.id
    release_connection(session)
    return user


def api_key_id(request: Request) -> str | None:
    """The id of the API key the request was signed in with; None for a browser session."""
    key_id: str | None = getattr(request.state, "api_key_id", None)
    return key_id


def cookie_session(
    request: Request, services: Services, session: Session
) -> tuple[SessionData, User] | None:
    """The browser session's data and its user, or None without a live one."""
    cookie = request.cookies.get(SESSION_COOKIE)
    data = find_session(session, services.signer, cookie) if cookie else None
    user = session.get(User, data.user_id) if data is not None else None
    release_connection(session)
    return (data, user) if data is not None and user is not None else None


def client_address(request: Request) -> str:
    """The client's address, for limits counted per client (see `chat.service.access.proxies`)."""
    return request.client.host if request.client else "unknown"


def get_current_user(request: Request, services: ServicesDep, session: SessionDep) -> User:
    """The user of the API key or the session cookie; 401 without either, 403 without CSRF."""
    token = bearer_token(request.headers.get("Authorization"))
    if token is not None:
        return _user_from_key(request, session, token)
    signed_in = cookie_session(request, services, session)
    if signed_in is None:
        raise _UNAUTHENTICATED
    data, user = signed_in
    if request.method in UNSAFE_METHODS and not csrf_matches(
        data, request.headers.get(CSRF_HEADER)
    ):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, detail=f"missing or wrong {CSRF_HEADER} header"
        )
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]


class Me(BaseModel):
    """The signed-in user as `/api/me`, login and the dock's session show them."""

    id: str
    email: str
    is_admin: bool

    @classmethod
    def of(cls, user: User) -> Me:
        return cls(id=user.id, email=user.email, is_admin=user.is_admin)


def get_key_user(request: Request, session: SessionDep) -> User:
    """The owner of the bearer API key; the OpenAI-compatible endpoint takes keys only."""
    token = bearer_token(request.headers.get("Authorization"))
    if token is None:
        raise _UNAUTHENTICATED
    return _user_from_key(request, session, token)


KeyUser = Annotated[User, Depends(get_key_user)]


def enforce_chat_limit(services: Services, user: User, key_id: str | None = None) -> None:
    """Count one chat request: against the API key's own budget (`PAPERCHAT_API_RATE_LIMIT`)
    when it came with a key, else against the user's (`PAPERCHAT_RATE_LIMIT`); 429 with
    Retry-After when over it."""
    if key_id is not None:
        decision = services.api_limiter.hit(f"api:{key_id}")
        what, limit = "requests with this API key", services.settings.api_rate_limit
    else:
        decision = services.chat_limiter.hit(f"chat:{user.id}")
        what, limit = "chat requests", services.settings.rate_limit
    if not decision.allowed:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            detail=over_limit(what, limit, decision),
            headers={"Retry-After": str(decision.retry_after_s)},
        )


def get_chatting_user(request: Request, services: ServicesDep, user: CurrentUser) -> User:
    enforce_chat_limit(services, user, api_key_id(request))
    return user


def get_chatting_key_user(request: Request, services: ServicesDep, user: KeyUser) -> User:
    enforce_chat_limit(services, user, api_key_id(request))
    return user


ChattingUser = Annotated[User, Depends(get_chatting_user)]
ChattingKeyUser = Annotated[User, Depends(get_chatting_key_user)]


async def admit(slot: AsyncExitStack, services: Services, user_id: str) -> None:
    """Wait for one of the worker's places to compute an answer in, held by `slot` until it
    closes (`chat.service.access.admission`); AnswersBusy (503) when the line is full, and `slot`
    closed then."""
    try:
        await slot.enter_async_context(services.admission.admitted(user_id))
    except BaseException:
        await slot.aclose()
        raise


def check_question(text: str, limits: Limits) -> None:
    """422 for a question the answerer's check refuses (blank, or over
    `PAPERCHAT_MAX_QUESTION_CHARS`), with its words."""
    try:
        answering.check_question(text, limits.max_question_chars)
    except answering.InvalidQuestion as e:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(e)) from e


def readable_text(value: Any) -> Any:
    """A request's text checked before it is parsed: a lone surrogate is a 422 naming it.

    The one check for the text of every chat route (`/api/chat`'s message,
    each `/v1/chat/completions` message, plain or in parts), so that both
    answer the same bad text the same way.
    """
    if isinstance(value, str):
        check_text(value, "the message")
    elif isinstance(value, list):
        for part in value:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                check_text(part["text"], "the message")
    return value


MessageText = Annotated[str, BeforeValidator(readable_text)]


PaperId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
AuthorName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_AUTHOR_CHARS)]

Category = Annotated[str, StringConstraints(min_length=1, max_length=32, pattern=r"^\S+$")]


def _a_real_date(value: str) -> str:
    """`value` if it is a day of the calendar (not `2020-13-45`)."""
    try:
        date.fromisoformat(value)
    except ValueError as e:
        raise ValueError(f"{value!r} is not a date") from e
    return value


# A date as `2024-03-01`, and nothing else (no timestamps, no times of day; no year 0), that
# is a real day. The one date type of the filters: /api/retrieve, /api/search, the MCP tools.
IsoDate = Annotated[
    str,
    StringConstraints(pattern=r"^([1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])-\d{2}-\d{2}$"),
    AfterValidator(_a_real_date),
    WithJsonSchema({"type": "string", "format": "date"}),
]


def check_date_range(published_from: str | None, published_to: str | None) -> None:
    """ValueError naming the fields when the range is empty, its first day after its last."""
    if published_from and published_to and published_from > published_to:
        raise ValueError("published_from is after published_to")


def chosen_filters(
    services: Services,
    user_id: str,
    paper_ids: list[str],
    author: str | None,
    collection_id: str | None,
) -> Filters:
    """A chat request's scope: its papers, its author's, its collection's (the user's own:
    `collection_scope`)."""
    if collection_id is not None:
        paper_ids = collection_scope(services, user_id, collection_id, paper_ids)
    return request_filters(services, paper_ids, author)


def request_filters(services: Services, paper_ids: list[str], author: str | None) -> Filters:
    """The filters of a chat or retrieval request, its author resolved to their papers
    (AuthorNotFound: 404)."""
    filters = Filters(paper_ids=tuple(normalise_paper_id(p) for p in paper_ids))
    if author:
        filters = author_filter(services.index.catalog, replace(filters, author=author))
    return filters


def collection_scope(
    services: Services, user_id: str, collection_id: str, asked: Sequence[str]
) -> list[str]:
    """The papers a question within the user's collection is answered from: the
    collection's, of them only those `asked` names when it names some. CollectionNotFound
    (404) for another user's collection; 422 when no paper is left to answer from."""
    with services.sessions() as session:
        held = paper_ids(session, get_collection(session, user_id, collection_id))
    if asked:
        wanted = {normalise_paper_id(p) for p in asked}
        held = [p for p in held if p in wanted]
    if not held:
        detail = f"collection {collection_id!r} holds " + (
            "none of those papers" if asked else "no papers"
        )
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail)
    return held


class PaperOut(BaseModel):
    """A paper of a collection as its owner's routes and its share link list it."""

    id: str
    title: str | None = Field(description="None for a paper the index no longer holds")
    authors: str | None
    published: str | None
    url: str | None


def paper_records(catalog: Catalog, ids: list[str]) -> list[dict[str, Any] | str]:
    """Each paper's record as `paper_details` gives it, in order; the bare id of one the
    index no longer holds."""
    records: list[dict[str, Any] | str] = []
    for paper_id in ids:
        try:
            records.append(paper_details(catalog, paper_id))
        except PaperNotFound:
            records.append(paper_id)
    return records


def paper_list(catalog: Catalog, ids: list[str]) -> list[PaperOut]:
    """The papers of `ids` with their titles, in order."""
    return [_paper_out(record) for record in paper_records(catalog, ids)]


def _paper_out(record: dict[str, Any] | str) -> PaperOut:
    if isinstance(record, str):
        return PaperOut(id=record, title=None, authors=None, published=None, url=None)
    return PaperOut(
        id=record["id"],
        title=record["title"],
        authors=record["authors"],
        published=record["published"],
        url=record["url"],
    )
