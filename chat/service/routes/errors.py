"""The error answers routes declare, so that `/openapi.json` lists every status a route gives.

Every error is JSON `{"detail": "..."}`: the handlers in the app factory
turn validation errors into that shape too, so the document's 422 is the
same `Error` body rather than FastAPI's list of validation errors.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Error(BaseModel):
    detail: str = Field(description="what went wrong, in words")


_MEANINGS = {
    400: "the body is not valid JSON",
    401: "not signed in: no session cookie and no valid API key",
    403: "refused: a cookie session without its X-CSRF-Token, or the action is closed",
    404: "no such item for this user",
    409: "conflicts with an existing item",
    413: "the request body is too large (PAPERCHAT_MAX_BODY_BYTES)",
    415: "the file is not of a type this route takes",
    422: "the request is not valid",
    429: "too many requests or open streams; see Retry-After",
    503: "the index or the database does not answer, or the server is too busy to take the "
    "question (every place in its line taken); see Retry-After",
}

# Every route that reads a JSON body can answer these.
BODY = (400, 413, 422)
# Every route behind sign-in can answer these; 403 only for unsafe methods with a cookie.
SIGNED_IN = (401, 403)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, each with the `Error` body."""
    return {code: {"model": Error, "description": _MEANINGS[code]} for code in sorted(statuses)}


class OpenAIErrorDetail(BaseModel):
    message: str = Field(description="what went wrong, in words")
    type: str = Field(description="OpenAI's error type, e.g. invalid_request_error")
    param: str | None = Field(description="the request's field at fault, if one is")
    code: str | None = Field(description="e.g. invalid_api_key, rate_limit_exceeded")


class OpenAIError(BaseModel):
    """Errors under `/v1`, in OpenAI's shape (`chat.service.openai.errors`)."""

    error: OpenAIErrorDetail


_OPENAI_MEANINGS = {
    400: "the request is not valid, or asks for what paperchat does not offer (`param` names it)",
    401: "no valid API key",
    404: "no such model",
    413: "the request body is too large (PAPERCHAT_MAX_BODY_BYTES)",
    429: "too many requests with this key (PAPERCHAT_API_RATE_LIMIT) or open streams",
    502: "the language model's server failed",
    503: "the rate limit store does not answer, the server is shutting down, or it is too "
    "busy to take the question (see Retry-After)",
    504: "the language model's server did not answer in time",
}


def openai_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` of a `/v1` route: these statuses, and any other client error,
    with OpenAI's error body (invalid input is a 400 there, never a 422)."""
    responses: dict[int | str, dict[str, Any]] = {
        code: {"model": OpenAIError, "description": _OPENAI_MEANINGS[code]}
        for code in sorted(statuses)
    }
    responses["4XX"] = {"model": OpenAIError, "description": "another client error"}
    return responses
