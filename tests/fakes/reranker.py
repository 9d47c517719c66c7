"""A rerank server for tests, on 127.0.0.1 in a thread.

It scores each document by how many times the query's words occur in it
(case-insensitive), so a test knows which order a real model would give. It
speaks one request shape (`api`): `rerank` (`documents`, answered
`{"results": [{"index", "relevance_score"}]}`, best first) or `tei`
(`texts`, answered `[{"index", "score"}]`), and answers the other with 422
as such servers do. A document holding the `favourite` text wins outright.
`mode` makes it fail: `error` (500), `slow` (sleeps `delay_s` before
answering), `garbage` (an index out of range).

    with FakeReranker(api="tei") as server:
        ...server.url...
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

Mode = Literal["ok", "error", "slow", "garbage"]


@dataclass(eq=False)
class FakeReranker:
    api: Literal["rerank", "tei"] = "rerank"
    mode: Mode = "ok"
    delay_s: float = 0.0
    # A document holding this text outscores every other.
    favourite: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/rerank"

    def __enter__(self) -> FakeReranker:
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

    def answer(self, body: dict[str, Any]) -> tuple[int, Any]:
        with self._lock:
            self.requests.append(body)
            mode, delay = self.mode, self.delay_s
        if mode == "error":
            return 500, {"error": "model crashed"}
        if mode == "slow":
            time.sleep(delay)
        key = "texts" if self.api == "tei" else "documents"
        documents = body.get(key)
        if not isinstance(documents, list) or not isinstance(body.get("query"), str):
            return 422, {"error": f"missing field `{key}`"}
        words = re.findall(r"\w+", body["query"].lower())
        scores = [sum(str(d).lower().count(w) for w in words) for d in documents]
        if self.favourite:
            scores = [
                s + 1000 * (self.favourite in str(d))
                for s, d in zip(scores, documents, strict=True)
            ]
        order = sorted(range(len(documents)), key=lambda i: -scores[i])
        if mode == "garbage":
            return 200, {"results": [{"index": len(documents) + 5, "relevance_score": 1.0}]}
        if self.api == "tei":
            return 200, [{"index": i, "score": float(scores[i])} for i in order]
        top_n = int(body.get("top_n") or len(documents))
        results = [{"index": i, "relevance_score": float(scores[i])} for i in order[:top_n]]
        return 200, {"results": results}


def _handler(server: FakeReranker) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with server._lock:
                server.headers.append(dict(self.headers))
            status, payload = server.answer(body)
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                return

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler
