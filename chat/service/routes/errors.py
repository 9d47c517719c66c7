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
    422: "the request is not valid",
    429: "too many requests or open streams; see Retry-After",
    503: "the index or the database does not answer",
}

# Every route that reads a JSON body can answer these.
BODY = (400, 413, 422)
# Every route behind sign-in can answer these; 403 only for unsafe methods with a cookie.
SIGNED_IN = (401, 403)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, each with the `Error` body."""
    return {code: {"model": Error, "description": _MEANINGS[code]} for code in sorted(statuses)}
