"""Errors under `/v1` in OpenAI's shape, so OpenAI clients raise their typed errors.

Everywhere else an error is `{"detail": "..."}` (the contract). Under `/v1`
it is OpenAI's `{"error": {"message", "type", "param", "code"}}` with the
same status, so the `openai` client raises `AuthenticationError` (401),
`PermissionDeniedError` (403), `NotFoundError` (404), `BadRequestError`
(400; FastAPI's 422 is a 400 here, as OpenAI answers it), `RateLimitError`
(429) or `InternalServerError` (5xx) with the message. The app's exception
handlers call `error_response`, which picks the shape from the path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from ingest.errors import PaperchatError

OPENAI_PREFIX = "/v1"

# OpenAI's error type, and a code when the status alone names the failure.
_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "not_found"),
    405: ("invalid_request_error", "method_not_allowed"),
    409: ("invalid_request_error", "conflict"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("requests", "rate_limit_exceeded"),
    502: ("server_error", "upstream_error"),
    503: ("server_error", "service_unavailable"),
    504: ("server_error", "upstream_timeout"),
    507: ("server_error", "insufficient_storage"),
}


class OpenAIError(PaperchatError):
    """A `/v1` request refused or failed, with OpenAI's `param` and `code` for the client."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.headers = dict(headers or {})


def invalid_request(message: str, param: str | None = None, code: str | None = None) -> OpenAIError:
    """A 400 `invalid_request_error` naming the request's field `param`."""
    return OpenAIError(400, message, param=param, code=code)


def is_openai_path(path: str) -> bool:
    return path == OPENAI_PREFIX or path.startswith(OPENAI_PREFIX + "/")


def openai_status(status: int) -> int:
    """The status OpenAI answers for ours: invalid input is a 400 there, not a 422."""
    return 400 if status == 422 else status


def error_body(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """`{"error": {...}}` for `status` (already mapped by `openai_status`)."""
    kind, default_code = _KINDS.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    return {
        "error": {"message": message, "type": kind, "param": param, "code": code or default_code}
    }


def error_payload(path: str, status: int, message: str) -> tuple[int, dict[str, Any]]:
    """The status and body of an error on `path`: OpenAI's shape under `/v1`, else `detail`."""
    if not is_openai_path(path):
        return status, {"detail": message}
    status = openai_status(status)
    return status, error_body(status, message)


def error_response(
    request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The JSON error answer for `request`, in the shape its path speaks."""
    status, body = error_payload(request.url.path, status, message)
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def openai_error_response(error: OpenAIError) -> JSONResponse:
    status = openai_status(error.status)
    body = error_body(status, error.message, param=error.param, code=error.code)
    return JSONResponse(body, status_code=status, headers=error.headers)


def param_of(location: Sequence[int | str]) -> str | None:
    """A validation error's location as OpenAI names a parameter: `messages.[0].content`."""
    parts = [f"[{p}]" if isinstance(p, int) else str(p) for p in location if p != "body"]
    return ".".join(parts) or None
