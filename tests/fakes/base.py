"""What every fake server in the tests shares: 127.0.0.1 on a free port, a thread, a record.

A fake subclasses `FakeServer` and answers in `handle(request, reply)`. The base
binds a free port on 127.0.0.1 when made, serves in a daemon thread inside a
`with` block, records every request (`requests`, with when it arrived and when
its answer began), sets `client_disconnected` when a client goes away before
its answer was written, and on leaving the block stops serving, closes the
kept-alive connections and wakes any answer still waiting (`Reply.wait`,
`Reply.hang`).

    class Echo(FakeServer):
        def handle(self, request: Request, reply: Reply) -> None:
            reply.send_json(200, {"path": request.path})

    with Echo() as server:
        httpx.get(f"{server.origin}/hello").json()  # {"path": "/hello"}
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from tests.support.running.sockets import readable

# How often the server thread checks for shutdown, and a waiting answer for its client.
POLL_SECONDS = 0.02


@dataclass(eq=False)
class Request:
    """One request as the fake received it."""

    method: str
    path: str  # without the query string
    params: dict[str, str]  # the query string, the last value of each name
    headers: dict[str, str]  # names in lower case
    content: bytes
    started: float  # time.monotonic() when the request arrived
    answered: float | None = field(default=None)  # when the answer's status line was sent

    @property
    def body(self) -> Any:
        """The content read as JSON (`{}` when there is none)."""
        return json.loads(self.content) if self.content else {}


class ClientGone(Exception):
    """The client closed the connection while the server was still answering."""


class Reply:
    """How `handle` answers one request: whole, as an event stream, or not at all."""

    def __init__(
        self, handler: BaseHTTPRequestHandler, request: Request, stopping: threading.Event
    ) -> None:
        self.handler = handler
        self.request = request
        self._stopping = stopping

    def send(
        self,
        status: int,
        content: bytes,
        content_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """A whole answer; raise `ClientGone` if the client left."""
        self._start(status, {"Content-Type": content_type, "Content-Length": str(len(content))})
        for name, value in (headers or {}).items():
            self.handler.send_header(name, value)
        self._end_headers()
        self._write(content)

    def send_json(self, status: int, payload: Any) -> None:
        self.send(status, json.dumps(payload).encode(), "application/json")

    def start_events(self) -> None:
        """Begin a chunked `text/event-stream` body."""
        self._start(
            200,
            {
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "Transfer-Encoding": "chunked",
            },
        )
        self._end_headers()
        self._write(b"")

    def send_event(self, data: str) -> None:
        """One SSE `data:` event as one HTTP chunk; raise `ClientGone` if the client left."""
        payload = f"data: {data}\n\n".encode()
        self._write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")

    def end_events(self) -> None:
        self._write(b"0\r\n\r\n")

    def break_connection(self) -> None:
        """Drop the connection without finishing the body, as a crashed upstream would."""
        self.handler.close_connection = True
        connection: socket.socket = self.handler.connection
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            return

    def client_gone(self) -> bool:
        """Whether the client has closed its end (readable with nothing to read)."""
        connection: socket.socket = self.handler.connection
        try:
            return readable(connection) and connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def wait(self, seconds: float) -> None:
        """Wait `seconds` (less if the server stops); raise `ClientGone` if the client left."""
        deadline = time.monotonic() + seconds
        while not self._stopping.is_set():  # stopping closes the connections itself
            if self.client_gone():
                raise ClientGone("client closed the connection")
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(POLL_SECONDS, left))

    def hang(self) -> None:
        """Send nothing more until the client leaves (`ClientGone`) or the server stops."""
        while not self._stopping.is_set():
            self.wait(POLL_SECONDS * 5)
        self.break_connection()

    def _start(self, status: int, headers: Mapping[str, str]) -> None:
        self.request.answered = time.monotonic()
        self.handler.send_response(status)
        for name, value in headers.items():
            self.handler.send_header(name, value)

    def _end_headers(self) -> None:
        try:
            self.handler.end_headers()
        except OSError as e:
            self._gone(e)

    def _write(self, data: bytes) -> None:
        try:
            if data:
                self.handler.wfile.write(data)
            self.handler.wfile.flush()
        except OSError as e:
            self._gone(e)

    def _gone(self, error: OSError) -> None:
        self.handler.close_connection = True
        raise ClientGone(f"client left: {error}") from error


class FakeServer:
    """Serves `handle` on 127.0.0.1 inside a `with` block, at `origin`."""

    def __init__(self) -> None:
        self.client_disconnected = threading.Event()
        self.lock = threading.Lock()  # guards `_requests` and whatever a subclass scripts
        self._requests: list[Request] = []
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
        )

    def handle(self, request: Request, reply: Reply) -> None:
        """Answer `request`; a subclass's part."""
        raise NotImplementedError

    @property
    def port(self) -> int:
        port: int = self._server.server_address[1]
        return port

    @property
    def origin(self) -> str:
        """`http://127.0.0.1:<port>`, to which a fake adds the path its clients expect."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[Request]:
        """Every request received so far, in order of arrival."""
        with self.lock:
            return list(self._requests)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stopping.set()
        self._server.shutdown()
        with self.lock:
            connections = list(self._connections)
        for connection in connections:  # wake handlers waiting on kept-alive connections
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                continue
        self._server.server_close()
        self._thread.join(timeout=5)

    def _receive(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        started = time.monotonic()
        length = int(handler.headers.get("Content-Length") or 0)
        content = handler.rfile.read(length) if length else b""
        url = urlsplit(handler.path)
        params = {name: values[-1] for name, values in parse_qs(url.query).items()}
        headers = {name.lower(): value for name, value in handler.headers.items()}
        request = Request(method, url.path, params, headers, content, started)
        with self.lock:
            self._requests.append(request)
        try:
            self.handle(request, Reply(handler, request, self._stopping))
        except ClientGone:
            handler.close_connection = True
            if not self._stopping.is_set():  # not gone: cut off by `__exit__`
                self.client_disconnected.set()

    def _track(self, connection: socket.socket, *, open_: bool) -> None:
        with self.lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)


def _handler_class(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            fake._track(self.connection, open_=True)

        def finish(self) -> None:
            fake._track(self.connection, open_=False)
            try:
                super().finish()
            except OSError:
                return

        def do_GET(self) -> None:
            fake._receive(self, "GET")

        def do_POST(self) -> None:
            fake._receive(self, "POST")

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read `requests` instead."""

    return Handler
