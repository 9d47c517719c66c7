"""A small OpenAI-compatible HTTP server for tests (a `FakeServer`, see base.py).

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
goes away before its stream ended, and `left_after(request)` says how many
of the answer's pieces that stream had sent then. New endpoints are added by
registering a route: `server.routes[("POST", "/v1/chat/completions")] =
handler`, where a handler takes the `Request` and the `Reply` to answer on
(both in base.py).

    with FakeOpenAI() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tests.fakes.base import ClientGone, FakeServer, Reply, Request

JsonObject = dict[str, Any]


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


Route = Callable[[Request, Reply], None]


def send_error(reply: Reply, status: int, message: str) -> None:
    """An error answer in OpenAI's shape."""
    error = {"message": message, "type": "fake_error", "param": None, "code": str(status)}
    reply.send_json(status, {"error": error})


class FakeOpenAI(FakeServer):
    """The server. Use as a context manager; `base_url` ends in `/v1`."""

    def __init__(self, dimension: int = 32) -> None:
        super().__init__()
        self.dimension = dimension
        self.default_script = ChatScript()
        self.routes: dict[tuple[str, str], Route] = {
            ("POST", "/v1/embeddings"): self._embeddings,
            ("POST", "/v1/chat/completions"): self._chat_completions,
        }
        self._scripts: deque[ChatScript] = deque()
        self._failure: Failure | None = None
        self._left_after: dict[Request, int] = {}

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def fail_with(self, status: int, message: str = "fake failure", times: int | None = 1) -> None:
        """Answer the next `times` requests (every request if None) with `status`."""
        with self.lock:
            self._failure = Failure(status, message, times)

    def stop_failing(self) -> None:
        with self.lock:
            self._failure = None

    def reset(self) -> None:
        """Forget what earlier tests queued: scripts not yet asked for and a failure not
        yet given, so that none of them answers another test's request."""
        self.stop_failing()
        with self.lock:
            self._scripts.clear()
        self.default_script = ChatScript()
        self.client_disconnected.clear()

    def script_chat(self, *scripts: ChatScript) -> None:
        """Queue how the next chat completion requests are answered, one script each."""
        with self.lock:
            self._scripts.extend(scripts)

    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path == "/v1/chat/completions"]

    def left_after(self, request: Request) -> int | None:
        """How many text pieces the streamed answer to `request` had sent when its client
        went away; None while it streams, or when it was answered to the end."""
        with self.lock:
            return self._left_after.get(request)

    def vector_for(self, text: str) -> npt.NDArray[np.float32]:
        """The (unnormalised) vector the server gives `text`."""
        seed = hashlib.sha256(text.encode()).digest()
        generator = np.random.default_rng(int.from_bytes(seed[:8], "little"))
        return (generator.standard_normal(self.dimension) * 3.0).astype(np.float32)

    def handle(self, request: Request, reply: Reply) -> None:
        with self.lock:
            failure = self._take_failure()
        if failure is not None:
            send_error(reply, failure.status, failure.message)
            return
        route = self.routes.get((request.method, request.path))
        if route is None:
            send_error(reply, 404, f"no route {request.method} {request.path}")
            return
        route(request, reply)

    def _take_failure(self) -> Failure | None:
        failure = self._failure
        if failure is not None and failure.remaining is not None:
            failure.remaining -= 1
            if failure.remaining <= 0:
                self._failure = None
        return failure

    def _embeddings(self, request: Request, reply: Reply) -> None:
        inputs = request.body.get("input")
        texts = [inputs] if isinstance(inputs, str) else inputs
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            send_error(reply, 400, "input must be a string or a list of strings")
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
        with self.lock:
            return self._scripts.popleft() if self._scripts else self.default_script

    def _chat_completions(self, request: Request, reply: Reply) -> None:
        script = self._next_script()
        if script.fail_status is not None:
            send_error(reply, script.fail_status, script.fail_message)
            return
        completion = _Completion(request.body, script)
        if not request.body.get("stream"):
            _answer_completion(completion, reply)
            return
        try:
            _stream_completion(completion, reply)
        except ClientGone:
            with self.lock:
                self._left_after[request] = completion.sent
            raise


def _stream_completion(completion: _Completion, reply: Reply) -> None:
    script = completion.script
    reply.start_events()
    reply.send_event(json.dumps(completion.chunk({"role": "assistant", "content": ""})))
    for sent, piece in enumerate(script.pieces):
        if _interrupted(reply, script, sent):
            return
        if sent > 0:
            reply.wait(script.delay)
        reply.send_event(json.dumps(completion.chunk({"content": piece})))
        completion.sent += 1
    if _interrupted(reply, script, len(script.pieces)):
        return
    reply.wait(script.delay)
    reply.send_event(json.dumps(completion.chunk({}, script.finish_reason)))
    if completion.include_usage:
        reply.send_event(json.dumps(completion.usage_chunk()))
    reply.send_event("[DONE]")
    reply.end_events()


def _answer_completion(completion: _Completion, reply: Reply) -> None:
    script = completion.script
    if script.break_after is not None:
        reply.break_connection()
        return
    if script.hang_after is not None:
        reply.hang()
        return
    reply.wait(script.delay * max(len(script.pieces) - 1, 0))
    reply.send_json(200, completion.whole())


def _interrupted(reply: Reply, script: ChatScript, sent: int) -> bool:
    """Break or hang the answer if the script says so at this point; True if it did."""
    if sent == script.break_after:
        reply.break_connection()
        return True
    if sent == script.hang_after:
        reply.hang()
        return True
    return False


class _Completion:
    """The JSON bodies of one scripted completion, streamed or whole."""

    def __init__(self, body: JsonObject, script: ChatScript) -> None:
        self.script = script
        self.sent = 0  # text pieces streamed so far
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
