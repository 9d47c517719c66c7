"""A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 in a thread.

The real `openai` client talks to it over real HTTP. It records every
request, can be told to fail the next requests with a status, and answers
`POST /v1/embeddings` with vectors derived from a hash of each input, so a
text always gets the same vector. New endpoints are added by registering a
route: `server.routes[("POST", "/v1/chat/completions")] = handler`, where a
handler takes the `RecordedRequest` and the `Reply` to answer on (`Reply.send_json`,
or `Reply.handler` for a streamed body).

    with FakeOpenAI() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: JsonObject


@dataclass
class Failure:
    status: int
    message: str
    remaining: int | None  # None: fail every request until cleared


class Reply:
    """How a route answers; wraps the request handler of one HTTP exchange."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.handler = handler

    def send_json(self, status: int, payload: JsonObject) -> None:
        data = json.dumps(payload).encode()
        self.handler.send_response(status)
        self.handler.send_header("Content-Type", "application/json")
        self.handler.send_header("Content-Length", str(len(data)))
        self.handler.end_headers()
        self.handler.wfile.write(data)

    def send_error(self, status: int, message: str) -> None:
        error = {"message": message, "type": "fake_error", "param": None, "code": str(status)}
        self.send_json(status, {"error": error})


Route = Callable[[RecordedRequest, Reply], None]


@dataclass(eq=False)
class FakeOpenAI:
    """The server. Use as a context manager; `base_url` ends in `/v1`."""

    dimension: int = 32
    routes: dict[tuple[str, str], Route] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.routes.setdefault(("POST", "/v1/embeddings"), self._embeddings)
        self._failure: Failure | None = None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def fail_with(self, status: int, message: str = "fake failure", times: int | None = 1) -> None:
        """Answer the next `times` requests (every request if None) with `status`."""
        self._failure = Failure(status, message, times)

    def stop_failing(self) -> None:
        self._failure = None

    def vector_for(self, text: str) -> npt.NDArray[np.float32]:
        """The (unnormalised) vector the server gives `text`."""
        seed = hashlib.sha256(text.encode()).digest()
        generator = np.random.default_rng(int.from_bytes(seed[:8], "little"))
        return (generator.standard_normal(self.dimension) * 3.0).astype(np.float32)

    def dispatch(self, request: RecordedRequest, reply: Reply) -> None:
        with self._lock:
            self.requests.append(request)
            failure = self._take_failure()
        if failure is not None:
            reply.send_error(failure.status, failure.message)
            return
        route = self.routes.get((request.method, request.path))
        if route is None:
            reply.send_error(404, f"no route {request.method} {request.path}")
            return
        route(request, reply)

    def _take_failure(self) -> Failure | None:
        failure = self._failure
        if failure is not None and failure.remaining is not None:
            failure.remaining -= 1
            if failure.remaining <= 0:
                self._failure = None
        return failure

    def _embeddings(self, request: RecordedRequest, reply: Reply) -> None:
        inputs = request.body.get("input")
        texts = [inputs] if isinstance(inputs, str) else inputs
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            reply.send_error(400, "input must be a string or a list of strings")
            return
        as_base64 = request.body.get("encoding_format") == "base64"
        data = [
            {"object": "embedding", "index": i, "embedding": self._encode(text, as_base64)}
            for i, text in enumerate(texts)
        ]
        tokens = sum(len(text.split()) for text in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        model = request.body.get("model", "")
        reply.send_json(200, {"object": "list", "data": data, "model": model, "usage": usage})

    def _encode(self, text: str, as_base64: bool) -> str | list[float]:
        vector = self.vector_for(text)
        if as_base64:
            return base64.b64encode(vector.astype("<f4").tobytes()).decode()
        return [float(x) for x in vector]


def _handler_class(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._dispatch("GET")

        def do_POST(self) -> None:
            self._dispatch("POST")

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read `server.requests` instead."""

        def _dispatch(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else {}
            headers = {key.lower(): value for key, value in self.headers.items()}
            path = self.path.split("?", 1)[0]
            server.dispatch(RecordedRequest(method, path, headers, body), Reply(self))

    return Handler
