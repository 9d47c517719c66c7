"""Requests from pages on origins the server does not allow, named in the log.

A page on another site that embeds the dock needs its origin in
`PAPERCHAT_CORS_ORIGINS`; without it the browser hides every answer from the
page and the dock sees only a network failure. The server cannot make the
browser say more, but it can tell its operator: each such origin is logged
once per process, with the setting to change.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger("paperchat.origins")
# Origins remembered as logged, at most: a flood of made-up origins cannot grow it further.
MAX_REMEMBERED = 1000


def own_origin(scope: Scope) -> str:
    """The origin a request was sent to, as a browser writes it in `Origin`."""
    host = Headers(scope=scope).get("host", "")
    return f"{scope.get('scheme', 'http')}://{host}"


class ForeignOrigins:
    """Logs, once per origin, a request whose `Origin` is neither this server nor allowed."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(allowed)
        self.logged: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            origin = Headers(scope=scope).get("origin")
            if origin and self._unknown(origin) and origin != own_origin(scope):
                self._log(origin, scope.get("path", ""))
        await self.app(scope, receive, send)

    def _unknown(self, origin: str) -> bool:
        return origin not in self.allowed and origin not in self.logged

    def _log(self, origin: str, path: str) -> None:
        if len(self.logged) < MAX_REMEMBERED:
            self.logged.add(origin)
        logger.warning(
            "a page on %s asked for %s, but PAPERCHAT_CORS_ORIGINS does not list %s: the "
            "browser keeps the answer from it, so a dock embedded there cannot work; add "
            "%s to PAPERCHAT_CORS_ORIGINS to allow it",
            origin, path, origin, origin,
        )  # fmt: skip
