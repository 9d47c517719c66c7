"""Request bodies as every route receives them: read whole before the app sees them, no
larger than `PAPERCHAT_MAX_BODY_BYTES` (413 beyond), and JSON nested no deeper than
`MAX_JSON_DEPTH` (400 beyond).

The depth is checked here, once for every route, because a JSON parser
recurses: a body of a few thousand `[` is a `RecursionError` in Python's
`json`, not a parse error, and routes that parse a body themselves (`/mcp`)
would answer it with a 500. The check reads the body in one pass, without
recursion, and counts no bracket inside a string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import accumulate
from typing import Final

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chat.service.openai.errors import error_payload
from ingest.errors import PaperchatError

# Deepest nesting of arrays and objects a JSON body may have: the requests this API
# takes nest a few levels (a `/v1` message's content parts, four).
MAX_JSON_DEPTH: Final = 64

# Per byte: +1 opens an array or object, -1 closes one; the bytes that are neither.
_STEPS: Final = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))
_NOT_BRACKETS: Final = bytes(b for b in range(256) if not _STEPS[b])


class BodyTooLarge(PaperchatError):
    """A request body longer than the limit; the rest of it is left unread."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"the request body is larger than {max_bytes} bytes")
        self.max_bytes = max_bytes


async def read_body(receive: Receive, max_bytes: int | None = None) -> tuple[bytes, Receive]:
    """The whole request body, and a `receive` that hands the app the same messages again;
    BodyTooLarge as soon as it passes `max_bytes`."""
    received: list[Message] = []
    chunks: list[bytes] = []
    total = 0
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        chunks.append(chunk)
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            raise BodyTooLarge(max_bytes)
        if not message.get("more_body", False):
            break

    async def replay() -> Message:
        return received.pop(0) if received else await receive()

    return b"".join(chunks), replay


def json_depth(body: bytes) -> int:
    """How deeply `body`'s arrays and objects nest (0 for a scalar), brackets inside strings
    not counted. A body that is not JSON gets a number too, which the parser then refuses."""
    try:
        encoding = json.detect_encoding(body)
        text = body if encoding == "utf-8" else body.decode(encoding).encode()
    except UnicodeDecodeError:
        return 0  # the parser refuses it
    # Escaped backslashes, then escaped quotes: every `"` left opens or closes a string.
    unescaped = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside_strings = b"".join(unescaped.split(b'"')[::2])
    brackets = outside_strings.translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEPS.__getitem__, brackets)), default=0)


def is_json(scope: Scope) -> bool:
    """Whether the app reads this request's body as JSON: `application/json` or
    `application/*+json`, or no `Content-Type` at all (FastAPI reads that as JSON)."""
    given = Headers(scope=scope).get("content-type")
    if given is None:
        return True
    media_type = given.partition(";")[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


class BodyLimits:
    """Reads a request body whole before the app sees it: 413 beyond `max_bytes`, and 400
    for a JSON body nested deeper than `MAX_JSON_DEPTH`, in the shape its path speaks."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, larger: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        # Paths that take larger bodies (an uploaded PDF), each with its own limit.
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            limit = self.larger.get(scope["path"], self.max_bytes)
            body, replay = await read_body(receive, limit)
        except BodyTooLarge as e:
            await _refuse(413, str(e), scope, receive, send)
            return
        if body and is_json(scope) and json_depth(body) > MAX_JSON_DEPTH:
            detail = f"the JSON body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels"
            await _refuse(400, detail, scope, replay, send)
            return
        await self.app(scope, replay, send)


async def _refuse(status: int, detail: str, scope: Scope, receive: Receive, send: Send) -> None:
    status, body = error_payload(scope["path"], status, detail)
    await JSONResponse(body, status_code=status)(scope, receive, send)
