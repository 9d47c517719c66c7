"""`/mcp`: the MCP server over Streamable HTTP, in the app, behind an API key.

Every request needs `Authorization: Bearer pc_...`, checked by the key store
`/v1` uses: without a live key the answer is 401 before the SDK reads the
body, so no tool runs. Each `tools/call` counts one request against the
key owner's chat budget, as a `/v1` completion does (429 with `Retry-After`
beyond), and an `ask`, `ask_collection` or `ask_uploads` holds one of the owner's stream
slots while it answers (429 when they are all open). So does a
server-to-client event stream (a `GET`, or a `subscriptions/listen` call)
while it is open; it ends after `PAPERCHAT_MCP_IDLE_TIMEOUT_S` without an event (in this
stateless transport it never has one) or when the client leaves, and gives
its slot back. The transport is stateless and
answers JSON, so any worker of `paperchat serve --workers N` can take any
request and no session outlives it; the SDK's session manager runs in the
app's lifespan (`run()`).

No cookie is read here, so a page another site serves cannot act for a
signed-in reader; the SDK's DNS-rebinding check (meant for unauthenticated
local servers) is off because the key is what authenticates.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import HTTPException
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chat.service.access.accounts import InvalidApiKey, verify_api_key_record
from chat.service.access.admission import AnswersBusy
from chat.service.access.auth import bearer_token
from chat.service.access.ratelimit import TooManyStreams
from chat.service.bodies import read_body
from chat.service.routes.deps import Services, enforce_chat_limit
from chat.service.storage.tables import User

MCP_PATH = "/mcp"
_NO_KEY = "send an API key as 'Authorization: Bearer <key>'"
# The call whose answer is a stream of the server's events, as a GET is (MCP 2026-07-28).
LISTEN = "subscriptions/listen"
# The tools that answer a question, each holding one of the user's stream slots meanwhile.
ANSWERING = frozenset({"ask", "ask_collection", "ask_uploads"})


class McpEndpoint:
    """The ASGI app mounted at `/mcp`: the key check, the limit, then the SDK's transport."""

    def __init__(self, services: Services, server: MCPServer[Any]) -> None:
        self.services = services
        self.server = server
        # Builds the SDK's session manager (the Starlette app it returns is not used:
        # this endpoint calls the manager itself, after the key check).
        server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            max_request_body_size=services.limits.max_body_bytes,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager: StreamableHTTPSessionManager = server.session_manager

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's task group, for the app's lifespan."""
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        token = bearer_token(headers.get("authorization"))
        if token is None:
            await _refuse(401, _NO_KEY, scope, receive, send)
            return
        found = await anyio.to_thread.run_sync(self._key_user, token)
        if found is None:
            await _refuse(401, "invalid or revoked API key", scope, receive, send)
            return
        user, key_id = found
        body, replay = await read_body(receive)
        messages = _messages(body)
        tools = _called_tools(messages)
        if tools:
            try:
                # The key's own budget (`PAPERCHAT_API_RATE_LIMIT`), as on /v1.
                await anyio.to_thread.run_sync(enforce_chat_limit, self.services, user, key_id)
            except HTTPException as e:
                await _refuse(e.status_code, str(e.detail), scope, receive, send, e.headers)
                return
        scope.setdefault("state", {})["user_id"] = user.id
        if scope["method"] == "GET" or any(m.get("method") == LISTEN for m in messages):
            await self._stream(user.id, scope, replay, send)
            return
        if not tools & ANSWERING:
            await self.manager.handle_request(scope, replay, send)
            return
        try:
            # An answer holds one of the user's stream slots and waits in the worker's line
            # for a place to be computed in, as on /api/chat and /v1.
            async with (
                self.services.slots.acquire(user.id),
                self.services.admission.admitted(user.id),
            ):
                await self.manager.handle_request(scope, replay, send)
        except TooManyStreams as e:
            detail = f"too many open answers: at most {e.max_per_user} at a time"
            await _refuse(429, detail, scope, receive, send, {"Retry-After": "1"})
        except AnswersBusy as e:
            retry = {"Retry-After": str(e.retry_after_s)}
            await _refuse(503, str(e), scope, receive, send, retry)

    async def _stream(self, user_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A server-to-client event stream: one of the user's stream slots while it is open
        (429 when they are all taken), ended after the idle timeout."""
        try:
            async with self.services.slots.acquire(user_id):
                idle_s = self.services.settings.mcp_idle_timeout_s
                await until_idle(self.manager.handle_request, idle_s, scope, receive, send)
        except TooManyStreams as e:
            detail = f"too many open streams: at most {e.max_per_user} at a time"
            await _refuse(429, detail, scope, receive, send, {"Retry-After": "1"})

    def _key_user(self, token: str) -> tuple[User, str] | None:
        """The key's owner and the key's id; None for a bad or revoked key."""
        with self.services.sessions() as session:
            try:
                key, user = verify_api_key_record(session, token)
            except InvalidApiKey:
                return None
            return user, key.id


async def _refuse(
    status: int,
    detail: str,
    scope: Scope,
    receive: Receive,
    send: Send,
    headers: Mapping[str, str] | None = None,
) -> None:
    extra = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    response = JSONResponse({"detail": detail}, status, headers={**extra, **(headers or {})})
    await response(scope, receive, send)


async def until_idle(
    app: ASGIApp, idle_s: float, scope: Scope, receive: Receive, send: Send
) -> None:
    """`app`'s answer, ended once `idle_s` seconds pass without an event on it (comments, such
    as the transport's pings, are not events)."""
    started = ended = False
    with anyio.CancelScope(deadline=anyio.current_time() + idle_s) as idle:

        async def watched(message: Message) -> None:
            nonlocal started, ended
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body":
                ended = not message.get("more_body", False)
                if _has_event(message.get("body", b"")):
                    idle.deadline = anyio.current_time() + idle_s
            await send(message)

        await app(scope, receive, watched)
    if idle.cancelled_caught and started and not ended:
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _has_event(chunk: bytes) -> bool:
    """Whether a chunk of an event stream holds more than comments and blank lines."""
    return any(line and not line.startswith(b":") for line in chunk.splitlines())


def _messages(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a body (one, or a batch); none when it is not JSON, which
    the transport answers with a parse error (the app's body check has already refused
    JSON nested too deep to parse)."""
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        return []
    return [m for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, dict)]


def _called_tools(messages: list[dict[str, Any]]) -> set[str]:
    """The tools the messages call."""
    return {
        str(m["params"].get("name", "")) if isinstance(m.get("params"), dict) else ""
        for m in messages
        if m.get("method") == "tools/call"
    }
