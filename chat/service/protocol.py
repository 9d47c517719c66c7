"""The HTTP protocol `paperchat serve` runs uvicorn with: httptools, and a deadline on
reading each request.

uvicorn bounds only the idle time between requests (`timeout_keep_alive`):
a client that sends its headers or its body a byte at a time holds its
connection for as long as it likes, and a few hundred of them hold the
server. Here a client has `PAPERCHAT_REQUEST_TIMEOUT_S` to send a whole
request, its headers and its body, counted from the connection (or from the
end of the previous response on a kept-alive one). Past it the server
answers 408 if it has not started answering, and closes the connection. The
response is not bounded: an answer may stream for as long as it takes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from chat.settings import get_settings

_BODY = json.dumps({"detail": "the request was not sent in time"}).encode()
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: application/json\r\n"
    b"content-length: " + str(len(_BODY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _BODY
)


class RequestDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on receiving each request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Read here: with several workers each process builds its own from the environment.
        self.request_timeout_s = get_settings().request_timeout_s
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn narrows the transport the same way
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this kept-alive connection

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout_s, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or cycle.response_complete or not cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        # An app still reading the body then receives `http.disconnect`.
        self.transport.close()
