"""HEAD answered as GET is, without the body, on every path a GET route serves.

FastAPI's routes take only the methods they declare, so a HEAD of a page, a feed or
the JSON API (a link checker, a crawler, `curl -I`) was a 405. `HeadAsGet` sends
such a request on as a GET and passes back its status and headers, `content-length`
too, with an empty body. A route that takes HEAD itself (Starlette's, such as
`/mcp`) gets it as it came.
"""

from __future__ import annotations

from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_DONE: Message = {"type": "http.response.body", "body": b"", "more_body": False}


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD" or _takes_head(scope):
            await self.app(scope, receive, send)
            return
        as_get = {**scope, "method": "GET"}
        answered = False

        async def headers_only(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                _share_route(as_get, scope)
                await send(message)
            elif not answered:
                answered = True
                await send(_DONE)

        async def until_answered() -> Message:
            # Once the headers are sent, the body is not wanted: a stream sees its client gone.
            if answered:
                return {"type": "http.disconnect"}
            return await receive()

        try:
            await self.app(as_get, until_answered, headers_only)
        finally:
            _share_route(as_get, scope)


def _takes_head(scope: Scope) -> bool:
    """Whether a route of the app takes HEAD at this path itself."""
    app = scope.get("app")
    routes = getattr(app, "routes", ())
    return any(route.matches(scope)[0] == Match.FULL for route in routes)


def _share_route(as_get: Scope, scope: Scope) -> None:
    """The route the GET matched, for the logs and the metrics, which name the HEAD by it."""
    if "route" in as_get:
        scope["route"] = as_get["route"]
