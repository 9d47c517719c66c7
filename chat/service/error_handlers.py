"""The app's exception handlers: every error is JSON, in the shape its path speaks.

`{"detail": "..."}` everywhere (the contract), OpenAI's `{"error": {...}}`
under `/v1` (`chat.service.openai.errors`). Validation errors become one
readable line naming each field; a 405 lists every method the path takes.
"""

from __future__ import annotations

import logging
from pathlib import Path

import psycopg
from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from chat.library.authors import AuthorNotFound
from chat.library.categories import CategoryNotFound
from chat.library.institutions import InstitutionNotFound
from chat.library.papers import PaperNotFound
from chat.service.access.admission import AnswersBusy
from chat.service.access.ratelimit import RateLimitUnavailable, TooManyStreams
from chat.service.openai.errors import (
    OpenAIError,
    error_response,
    invalid_request,
    is_openai_path,
    openai_error_response,
    param_of,
)
from chat.service.storage.collections import CollectionNotFound
from chat.service.storage.conversations import NotFound
from chat.service.storage.uploads import UploadNotFound
from ingest.disk import disk_full_message, is_disk_full

logger = logging.getLogger("paperchat.app")
_SERVER_ADVICE = "make room; requests that write answer 507 until then"


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(x) for x in item.get("loc", ()) if x != "body")
        message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "invalid request"


def add_error_handlers(app: FastAPI, data_dir: Path) -> None:
    """JSON errors: `{"detail"}` everywhere, OpenAI's `{"error"}` under `/v1`
    (`chat.service.openai.errors`)."""

    async def invalid(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        if is_openai_path(request.url.path):
            locations = [item.get("loc", ()) for item in error.errors()]
            param = param_of(locations[0]) if locations else None
            return openai_error_response(invalid_request(_validation_message(error), param))
        return JSONResponse({"detail": _validation_message(error)}, status_code=422)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, StarletteHTTPException)
        if not is_openai_path(request.url.path):
            return await http_exception_handler(request, error)
        return error_response(request, error.status_code, str(error.detail), error.headers)

    async def openai_error(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, OpenAIError)
        return openai_error_response(error)

    async def not_found(request: Request, error: Exception) -> JSONResponse:
        return error_response(request, 404, str(error))

    async def too_many_streams(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, TooManyStreams)
        detail = f"too many open chat streams: at most {error.max_per_user} at a time"
        return error_response(request, 429, detail, {"Retry-After": "1"})

    async def busy(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, AnswersBusy)
        headers = {"Retry-After": str(error.retry_after_s)}
        return error_response(request, 503, str(error), headers)

    async def limits_unavailable(request: Request, error: Exception) -> JSONResponse:
        logger.warning("%s", error)
        detail = "the rate limit store is unavailable; retry in a moment"
        return error_response(request, 503, detail, {"Retry-After": "5"})

    async def method_not_allowed(request: Request, _error: Exception) -> JSONResponse:
        allowed = _allowed_methods(request)
        headers = {"Allow": ", ".join(allowed)}
        return error_response(request, 405, "method not allowed", headers)

    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        logger.exception("unhandled error: %s", type(error).__name__)
        return error_response(request, 500, "internal server error")

    async def storage_failed(request: Request, error: Exception) -> JSONResponse:
        """A database or file write that failed: 507 when the disk is full, 503 when the
        database is out of reach (a PostgreSQL server down or restarting, a SQLite file
        locked past the wait), else a 500."""
        if isinstance(error, OperationalError | psycopg.OperationalError) and not is_disk_full(
            error, data_dir
        ):
            logger.warning("the database is unavailable: %s", error)
            detail = "the database is unavailable; retry in a moment"
            return error_response(request, 503, detail, {"Retry-After": "5"})
        if not is_disk_full(error, data_dir):
            return await unexpected(request, error)
        logger.error("%s; %s", disk_full_message(data_dir, _SERVER_ADVICE), error)
        detail = "the server's disk is full: nothing was saved; try again later"
        return error_response(request, 507, detail)

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(OpenAIError, openai_error)
    app.add_exception_handler(NotFound, not_found)
    app.add_exception_handler(CollectionNotFound, not_found)
    app.add_exception_handler(PaperNotFound, not_found)
    app.add_exception_handler(UploadNotFound, not_found)
    app.add_exception_handler(AuthorNotFound, not_found)
    app.add_exception_handler(CategoryNotFound, not_found)
    app.add_exception_handler(InstitutionNotFound, not_found)
    app.add_exception_handler(TooManyStreams, too_many_streams)
    app.add_exception_handler(AnswersBusy, busy)
    app.add_exception_handler(RateLimitUnavailable, limits_unavailable)
    app.add_exception_handler(405, method_not_allowed)
    app.add_exception_handler(OperationalError, storage_failed)
    app.add_exception_handler(psycopg.OperationalError, storage_failed)
    app.add_exception_handler(OSError, storage_failed)
    app.add_exception_handler(Exception, unexpected)


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> list[str]:
    """The methods some route takes at this path, not only those of the first route matched;
    HEAD wherever GET is (`chat.service.head` answers it)."""
    allowed = set()
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in request.app.routes):
            allowed.add(method)
    if "GET" in allowed:
        allowed.add("HEAD")
    return [method for method in _METHODS if method in allowed]
