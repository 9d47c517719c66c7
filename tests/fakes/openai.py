"""A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 in a thread.

The real `openai` client talks to it over real HTTP. It records every
request, can be told to fail the next requests with a status, and answers
`POST /v1/embeddings` with vectors derived from a hash of each input, so a
text always gets the same vector.

`POST /v1/chat/completions` answers from scripts (`ChatScript`), taken one
per request in the order queued with `script_chat`, then `default_script`:
the text pieces to send and the delay between them, a status to fail with
before streaming, a connection to break or a stream to hang after N
pieces. With `stream: true` it speaks OpenAI's SSE chunk format (a usage
chunk when `stream_options.include_usage`, then `data: [DONE]`), otherwise
it answers one JSON completion. `client_disconnected` is set when a client
goes away before its stream ended. New endpoints are added by registering a
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
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

JsonObject = dict[str, Any]

# How often a waiting stream checks whether its client went away.
POLL_SECONDS = 0.02


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


@dataclass(frozen=True)
class ChatScript:
    """How the server answers one chat completion request."""

    pieces: tuple[str, ...] = ("Hello", ", ", "world", ".")
    delay: float = 0.0  # seconds before each piece after the first
    fail_status: int | None = None  # answer this status instead of a completion
    fail_message: str = "scripted failure"
    break_after: int | None = None  # drop the connection after this many pieces
    hang_after: int | None = None  # send nothing more after this many pieces
    finish_reason: str = "stop"

    @property
    def text(self) -> str:
        return "".join(self.pieces)


class ClientGone(Exception):
    """The client closed the connection while the server was still answering."""


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

    def start_events(self) -> None:
        """Begin a chunked `text/event-stream` body."""
        self.handler.send_response(200)
        self.handler.send_header("Content-Type", "text/event-stream")
        self.handler.send_header("Cache-Control", "no-cache")
        self.handler.send_header("Transfer-Encoding", "chunked")
        self.handler.end_headers()
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
            readable, _, _ = select.select([connection], [], [], 0)
            return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _write(self, data: bytes) -> None:
        try:
            if data:
                self.handler.wfile.write(data)
            self.handler.wfile.flush()
        except OSError as e:
            self.handler.close_connection = True
            raise ClientGone(f"client left: {e}") from e


Route = Callable[[RecordedRequest, Reply], None]


@dataclass(eq=False)
class FakeOpenAI:
    """The server. Use as a context manager; `base_url` ends in `/v1`."""

    dimension: int = 32
    routes: dict[tuple[str, str], Route] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)
    default_script: ChatScript = field(default_factory=ChatScript)

    def __post_init__(self) -> None:
        self.routes.setdefault(("POST", "/v1/embeddings"), self._embeddings)
        self.routes.setdefault(("POST", "/v1/chat/completions"), self._chat_completions)
        self.client_disconnected = threading.Event()
        self._scripts: deque[ChatScript] = deque()
        self._failure: Failure | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
        )

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
        self._stopping.set()
        self._server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:  # wake handlers waiting on kept-alive connections
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                continue
        self._server.server_close()
        self._thread.join(timeout=5)

    def fail_with(self, status: int, message: str = "fake failure", times: int | None = 1) -> None:
        """Answer the next `times` requests (every request if None) with `status`."""
        with self._lock:
            self._failure = Failure(status, message, times)

    def stop_failing(self) -> None:
        with self._lock:
            self._failure = None

    def script_chat(self, *scripts: ChatScript) -> None:
        """Queue how the next chat completion requests are answered, one script each."""
        with self._lock:
            self._scripts.extend(scripts)

    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == "/v1/chat/completions"]

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
        try:
            route(request, reply)
        except ClientGone:
            self.client_disconnected.set()

    def _take_failure(self) -> Failure | None:
        failure = self._failure
        if failure is not None and failure.remaining is not None:
            failure.remaining -= 1
            if failure.remaining <= 0:
                self._failure = None
        return failure

    def _track(self, connection: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

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

    def _next_script(self) -> ChatScript:
        with self._lock:
            return self._scripts.popleft() if self._scripts else self.default_script

    def _chat_completions(self, request: RecordedRequest, reply: Reply) -> None:
        script = self._next_script()
        if script.fail_status is not None:
            reply.send_error(script.fail_status, script.fail_message)
            return
        completion = _Completion(request.body, script)
        if request.body.get("stream"):
            self._stream_completion(completion, reply)
        else:
            self._answer_completion(completion, reply)

    def _stream_completion(self, completion: _Completion, reply: Reply) -> None:
        script = completion.script
        reply.start_events()
        reply.send_event(json.dumps(completion.chunk({"role": "assistant", "content": ""})))
        for sent, piece in enumerate(script.pieces):
            if self._interrupted(reply, script, sent):
                return
            if sent > 0:
                self._pause(reply, script.delay)
            reply.send_event(json.dumps(completion.chunk({"content": piece})))
        if self._interrupted(reply, script, len(script.pieces)):
            return
        self._pause(reply, script.delay)
        reply.send_event(json.dumps(completion.chunk({}, script.finish_reason)))
        if completion.include_usage:
            reply.send_event(json.dumps(completion.usage_chunk()))
        reply.send_event("[DONE]")
        reply.end_events()

    def _answer_completion(self, completion: _Completion, reply: Reply) -> None:
        script = completion.script
        if script.break_after is not None:
            reply.break_connection()
            return
        if script.hang_after is not None:
            self._hang(reply)
            return
        self._pause(reply, script.delay * max(len(script.pieces) - 1, 0))
        reply.send_json(200, completion.whole())

    def _interrupted(self, reply: Reply, script: ChatScript, sent: int) -> bool:
        """Break or hang the answer if the script says so at this point; True if it did."""
        if sent == script.break_after:
            reply.break_connection()
            return True
        if sent == script.hang_after:
            self._hang(reply)
            return True
        return False

    def _pause(self, reply: Reply, seconds: float) -> None:
        """Wait `seconds`, watching the connection; raise `ClientGone` if the client left."""
        deadline = time.monotonic() + seconds
        while True:
            if reply.client_gone():
                raise ClientGone("client closed the connection")
            left = deadline - time.monotonic()
            if left <= 0 or self._stopping.is_set():
                return
            time.sleep(min(POLL_SECONDS, left))

    def _hang(self, reply: Reply) -> None:
        """Send nothing more until the client leaves (`ClientGone`) or the server stops."""
        while not self._stopping.is_set():
            self._pause(reply, POLL_SECONDS * 5)
        reply.break_connection()


class _Completion:
    """The JSON bodies of one scripted completion, streamed or whole."""

    def __init__(self, body: JsonObject, script: ChatScript) -> None:
        self.script = script
        self.model = str(body.get("model", ""))
        self.id = f"chatcmpl-fake-{time.monotonic_ns()}"
        self.created = int(time.time())
        options = body.get("stream_options") or {}
        self.include_usage = bool(options.get("include_usage"))
        messages = body.get("messages") or []
        contents = (m.get("content") for m in messages if isinstance(m, dict))
        self.prompt_tokens = sum(len(c.split()) for c in contents if isinstance(c, str))

    def chunk(self, delta: JsonObject, finish_reason: str | None = None) -> JsonObject:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        payload = self._envelope("chat.completion.chunk")
        payload["choices"] = [choice]
        if self.include_usage:
            payload["usage"] = None
        return payload

    def usage_chunk(self) -> JsonObject:
        payload = self._envelope("chat.completion.chunk")
        payload["choices"] = []
        payload["usage"] = self.usage()
        return payload

    def whole(self) -> JsonObject:
        message = {"role": "assistant", "content": self.script.text, "refusal": None}
        choice = {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": self.script.finish_reason,
        }
        payload = self._envelope("chat.completion")
        payload["choices"] = [choice]
        payload["usage"] = self.usage()
        return payload

    def usage(self) -> JsonObject:
        completion_tokens = len(self.script.pieces)
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
        }

    def _envelope(self, kind: str) -> JsonObject:
        return {
            "id": self.id,
            "object": kind,
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
        }


def _handler_class(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            server._track(self.connection, open_=True)

        def finish(self) -> None:
            server._track(self.connection, open_=False)
            try:
                super().finish()
            except OSError:
                return

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
