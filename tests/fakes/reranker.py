"""A rerank server for tests (a `FakeServer`, see base.py).

It scores each document by how many times the query's words occur in it
(case-insensitive), so a test knows which order a real model would give. It
speaks one request shape (`api`): `rerank` (`documents`, answered
`{"results": [{"index", "relevance_score"}]}`, best first) or `tei`
(`texts`, answered `[{"index", "score"}]`), and answers the other with 422
as such servers do. A document holding the `favourite` text wins outright.
`mode` makes it fail: `error` (500), `slow` (sleeps `delay_s` before
answering, or until the client gives up), `garbage` (an index out of range).
`requests` holds what was asked, each body read with `.body`.

    with FakeReranker(api="tei") as server:
        ...server.url...
"""

from __future__ import annotations

import re
from typing import Any, Literal

from tests.fakes.base import FakeServer, Reply, Request

Mode = Literal["ok", "error", "slow", "garbage"]


class FakeReranker(FakeServer):
    def __init__(
        self,
        api: Literal["rerank", "tei"] = "rerank",
        mode: Mode = "ok",
        delay_s: float = 0.0,
        favourite: str = "",
    ) -> None:
        super().__init__()
        self.api = api
        self.mode = mode
        self.delay_s = delay_s
        # A document holding this text outscores every other.
        self.favourite = favourite

    @property
    def url(self) -> str:
        return f"{self.origin}/rerank"

    def handle(self, request: Request, reply: Reply) -> None:
        if self.mode == "slow":
            reply.wait(self.delay_s)
        status, payload = self.answer(request.body)
        reply.send_json(status, payload)

    def answer(self, body: dict[str, Any]) -> tuple[int, Any]:
        """Status and JSON payload for a request's body, as `mode` and `api` say."""
        if self.mode == "error":
            return 500, {"error": "model crashed"}
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
        if self.mode == "garbage":
            return 200, {"results": [{"index": len(documents) + 5, "relevance_score": 1.0}]}
        if self.api == "tei":
            return 200, [{"index": i, "score": float(scores[i])} for i in order]
        top_n = int(body.get("top_n") or len(documents))
        results = [{"index": i, "relevance_score": float(scores[i])} for i in order[:top_n]]
        return 200, {"results": results}
