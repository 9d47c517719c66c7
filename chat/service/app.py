"""The app factory: builds every client from the settings and mounts the routes.

`create_app(settings)` checks that the database is at the latest schema and
that there is a secret key (`chat.service.bootstrap.prepare_service` makes
both, once, before any worker starts), opens the index, and makes the rate
limiters, the stream slots, the metrics and the session signer; the lifespan
warms the index up and closes what it opened. `paperchat serve --workers N`
imports `chat.service.app:create_app_from_env` in each worker.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chat.service.access.admission import Admission
from chat.service.access.auth import CSRF_HEADER, SessionSigner
from chat.service.access.gate import Gate
from chat.service.access.origins import ForeignOrigins
from chat.service.access.proxies import (
    ClientAddress,
    TrustedProxies,
    parse_trusted_proxies,
    turn_off_server_proxy_headers,
)
from chat.service.access.ratelimit import RateLimiter, build_rate_limiter
from chat.service.access.slots import build_stream_slots
from chat.service.bodies import BodyLimits
from chat.service.bootstrap import check_database, secret_key
from chat.service.error_handlers import add_error_handlers
from chat.service.head import HeadAsGet
from chat.service.logs import new_request_id, reset_request_id, set_request_id
from chat.service.mcp.annotations import add_annotation_tools
from chat.service.mcp.collections import add_collection_tools
from chat.service.mcp.endpoint import MCP_PATH, McpEndpoint
from chat.service.mcp.tools import build_server
from chat.service.metrics import UNMATCHED_ROUTE, Metrics
from chat.service.replication import following
from chat.service.routes import (
    bibtex,
    chat,
    compare,
    conversations,
    health,
    notes,
    openai_compat,
    openai_responses,
    papers,
    retrieve,
)
from chat.service.routes.accounts import auth, keys, sessions
from chat.service.routes.collections import imports, manage, sharing
from chat.service.routes.deps import Limits, Services
from chat.service.routes.following import feeds, follows, watches
from chat.service.routes.people import authors, institutions, researchers
from chat.service.routes.uploads import manage as uploads
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.uploads import MB
from chat.service.streams import RunningTurns, beating
from chat.service.uploads.reading import UploadReader
from chat.service.web import pages
from chat.service.web.discovery import api_docs, llms, sitemap, unapi
from chat.service.web.listings import categories, follow_pages
from chat.service.web.papers import reader
from chat.service.web.papers.annotations import Annotations
from chat.service.web.papers.pdfpages import PdfPages
from chat.service.web.people import profiles
from chat.service.web.uploads import reader as upload_reader
from chat.service.worker import use_worker_threads, warm_up
from chat.settings import Settings, SettingsError, env_name, get_settings
from chat.wiring import Wiring
from ingest.pdf.store import PdfStore

logger = logging.getLogger("paperchat.app")


def create_app(settings: Settings) -> FastAPI:
    """The service for `settings`, on a data dir `prepare_service` prepared (else NotPrepared)."""
    limits = Limits.from_settings(settings)
    proxies = _trusted_proxies(settings)
    chat_limiter = _rate_limiter(settings, "rate_limit")
    api_limiter = _rate_limiter(settings, "api_rate_limit")
    login_limiter = _rate_limiter(settings, "login_rate_limit")
    login_address_limiter = _rate_limiter(settings, "login_address_rate_limit")
    login_email_limiter = _rate_limiter(settings, "login_email_rate_limit")
    search_limiter = _rate_limiter(settings, "search_rate_limit")
    render_limiter = _rate_limiter(settings, "page_render_rate_limit")
    engine = create_database_engine(settings.resolved_database_url)
    try:
        check_database(engine)
        signer = SessionSigner(secret_key(settings), settings.session_max_age_s)
    except Exception:
        engine.dispose()
        raise
    index = Wiring(settings)
    pdf_pages = PdfPages(lambda: index.catalog, store=PdfStore(settings.pdf_store_path))
    services = Services(
        settings=settings,
        limits=limits,
        engine=engine,
        sessions=session_factory(engine),
        index=index,
        signer=signer,
        chat_limiter=chat_limiter,
        api_limiter=api_limiter,
        login_limiter=login_limiter,
        login_address_limiter=login_address_limiter,
        login_email_limiter=login_email_limiter,
        search_limiter=search_limiter,
        render_limiter=render_limiter,
        password_checks=Gate(settings.max_password_checks, settings.password_check_wait_s),
        slots=build_stream_slots(
            limits.max_streams_per_user,
            settings.redis_url or None,
            settings.stream_ttl_s,
            settings.stream_heartbeat_s,
        ),
        admission=_admission(settings),
        turns=RunningTurns(),
        metrics=Metrics(),
        pdf_pages=pdf_pages,
        annotations=Annotations(pdf_pages, lambda: index.catalog),
    )
    if services.index.remote_reranker is not None:
        services.metrics.watch_reranker(services.index.remote_reranker.stats.snapshot)
    server = build_server(services.index, limits.max_question_chars)
    add_collection_tools(server, services)
    add_annotation_tools(server, services.annotations)
    mcp = McpEndpoint(services, server)
    app = FastAPI(
        title="paperchat",
        summary="Cited answers from arXiv papers.",
        version="0.1.0",
        lifespan=_lifespan(services, mcp),
        # `/docs` and `/openapi.json` come from chat/service/web/discovery/api_docs.py, with
        # the pages' security headers; no ReDoc.
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.services = services
    app.state.uploads = UploadReader(settings, index, services.sessions)
    app.state.mcp = mcp
    _add_middleware(app, services, proxies)
    add_error_handlers(app, settings.data_dir)
    _document_limits(app, limits)
    # bibtex before papers: `/api/papers/{id}` takes any path, `.../bibtex` too; the
    # reader's routes before the pages: `/papers/{id}` of the pages would take theirs too.
    routers = (
        health,
        auth,
        sessions,
        keys,
        bibtex,
        papers,
        authors,
        researchers,
        institutions,
        chat,
        compare,
        retrieve,
        conversations,
        follows,
        watches,
        feeds,
        imports,
        manage,
        sharing,
        notes,
        uploads,
        openai_compat,
        openai_responses,
        llms,
        sitemap,
        unapi,
        reader,
        upload_reader,
        profiles,
        categories,
        follow_pages,
        pages,
        api_docs,
    )
    for module in routers:
        app.include_router(module.router)
    app.router.routes.append(Route(MCP_PATH, mcp, methods=["GET", "POST", "DELETE"]))
    return app


def _rate_limiter(settings: Settings, name: str) -> RateLimiter:
    """The limiter of the setting `name`; a Redis URL, when set, shares it between workers."""
    limit: str = getattr(settings, name)
    try:
        return build_rate_limiter(limit, settings.redis_url or None)
    except ValueError as e:
        raise SettingsError(f"invalid settings: {env_name(name)}: {e}") from e


def _trusted_proxies(settings: Settings) -> TrustedProxies:
    try:
        return TrustedProxies(parse_trusted_proxies(settings.trusted_proxies))
    except ValueError as e:
        raise SettingsError(f"invalid settings: {env_name('trusted_proxies')}: {e}") from e


def create_app_from_env() -> FastAPI:
    """The app for the settings in the environment: what each `serve --workers N` process
    builds, and what `uvicorn --factory chat.service.app:create_app_from_env` serves (with
    uvicorn's own proxy headers off: the app judges X-Forwarded-* itself)."""
    from chat.service.logs import configure_worker_logging

    configure_worker_logging()
    turn_off_server_proxy_headers()
    return create_app(get_settings())


def _lifespan(services: Services, mcp: McpEndpoint) -> Any:
    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        use_worker_threads(services.settings.worker_threads)
        # Load the embedder, the lexical index and the rest now, not on the first question.
        await asyncio.to_thread(warm_up, services.index)
        replica = services.index.replica if services.settings.shared_catalog else None
        settings = services.settings
        heartbeat = beating(
            services.sessions,
            services.turns.node_id,
            settings.stream_heartbeat_s,
            settings.stream_ttl_s,
        )
        try:
            # The MCP transport's task group, the lexical replica, the streams' heartbeat and
            # look for deleted conversations, the uploads' heartbeat (and their recovery).
            async with (
                mcp.running(),
                following(replica),
                heartbeat,
                chat.watching_deletions(services),
                _app.state.uploads.recovering(),
            ):
                yield
        finally:
            await services.slots.aclose()
            await asyncio.to_thread(_app.state.uploads.close)
            await services.index.answerer.aclose()
            services.pdf_pages.close()
            services.index.close()
            services.password_checks.close()
            services.engine.dispose()

    return lifespan


def _add_middleware(app: FastAPI, services: Services, proxies: TrustedProxies) -> None:
    # Innermost: the middleware around it, the access log and the metrics too, see the HEAD.
    app.add_middleware(HeadAsGet)
    origins = [o.strip() for o in services.settings.cors_origins.split(",") if o.strip()]
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_credentials=True,
            allow_methods=["GET", "POST", "PATCH", "DELETE"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                CSRF_HEADER,
                "Mcp-Protocol-Version",
                "Mcp-Session-Id",
            ],
            # A dock on another site reads when to ask again after a 503 or a 429.
            expose_headers=["Retry-After"],
        )
    app.add_middleware(ForeignOrigins, allowed=origins)
    # An uploaded PDF, with its form's few lines around it.
    upload_limit = services.settings.max_upload_mb * MB + 64 * 1024
    app.add_middleware(
        BodyLimits,
        max_bytes=services.limits.max_body_bytes,
        larger={"/api/uploads": upload_limit},
    )
    app.add_middleware(RequestContext, metrics=services.metrics)
    # Outermost: everything inside, the access log too, sees the client it decides.
    app.add_middleware(ClientAddress, proxies=proxies)


def _admission(settings: Settings) -> Admission:
    """The worker's places for answers (`PAPERCHAT_MAX_ANSWERS`; 0: by the answers' mode) and
    its line."""
    capacity = settings.max_answers or (4 if settings.llm == "extractive" else 64)
    return Admission(capacity, settings.answer_queue, settings.answer_queue_per_user)


def _document_limits(app: FastAPI, limits: Limits) -> None:
    """`/openapi.json` states the question length this server was configured with."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        schema = generate()  # built once, then FastAPI's cached copy
        message = schema["components"]["schemas"]["ChatRequest"]["properties"]["message"]
        message["maxLength"] = limits.max_question_chars
        return schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented override


_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
MAX_LOGGED_PATH = 200


class RequestContext:
    """Gives each request an id (`X-Request-ID`, kept if the client sent a sane one), logs it
    and counts it in the metrics under its route template."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _REQUEST_ID.fullmatch(given) else new_request_id()
        token = set_request_id(request_id)
        started = time.perf_counter()
        status: list[int] = []

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
                self._observe(scope, message["status"], started)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if not status:
                self._observe(scope, 500, started)
            route = _route_template(scope)
            client = scope.get("client")
            logger.info(
                "%s %s %s",
                scope["method"],
                route,
                status[0] if status else 500,
                extra={
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                    "path": _logged_path(scope),
                    "client": client[0] if client else None,
                },
            )
            reset_request_id(token)

    def _observe(self, scope: Scope, status: int, started: float) -> None:
        seconds = time.perf_counter() - started
        self.metrics.observe_request(scope["method"], _route_template(scope), status, seconds)


def _logged_path(scope: Scope) -> str:
    """The request's path as the log keeps it: never its query (a search's words, a token),
    at most `MAX_LOGGED_PATH` characters (a hostile path writes no long line)."""
    path = str(scope.get("path", ""))
    return path if len(path) <= MAX_LOGGED_PATH else path[:MAX_LOGGED_PATH] + "..."


def _route_template(scope: Scope) -> str:
    path = getattr(scope.get("route"), "path", None)
    return path if isinstance(path, str) else UNMATCHED_ROUTE
