"""A reranking model behind an HTTP server, as the last look at the fused candidates.

Two request shapes are spoken, the ones rerank servers share:
- `rerank` (Cohere v2, Jina, vLLM, Infinity): POST `{"model", "query",
  "documents": [...], "top_n"}`, answered `{"results": [{"index",
  "relevance_score"}, ...]}`;
- `tei` (Hugging Face text-embeddings-inference): POST `{"query", "texts"}`,
  answered `[{"index", "score"}, ...]`.
With `api="auto"` the first request is sent in the `rerank` shape; a server
that rejects it as malformed (400 or 422) is asked again in the `tei` shape,
and the shape that worked is kept. Either answer shape is read whatever was
sent.

The best `depth` candidates are reordered by the model's scores; the rest
follow in their fused order. A server that fails, times out or answers
nonsense raises `RerankerUnavailable`: the retriever keeps the fused order
and says so (`Retrieved.degraded`). Every outcome is counted in `stats`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from chat.rag.rerank.reranker import Passages, Query, RerankerUnavailable
from chat.rag.retrieval.fusion import Candidate

Api = Literal["auto", "rerank", "tei"]
APIS: tuple[Api, ...] = ("auto", "rerank", "tei")
DEFAULT_API: Api = "auto"
# The best fused candidates the model reorders, and the seconds it may take.
DEFAULT_DEPTH = 50
DEFAULT_TIMEOUT_S = 5.0
OUTCOMES = ("ok", "error", "timeout")
# Characters of a passage sent to the model (its title and text): rerank models
# read about 512 tokens, and a long chunk is a large request for nothing.
PASSAGE_CHARS = 2000


@dataclass
class RerankerStats:
    """Requests to the reranker by outcome, shared by the threads that retrieve."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, outcome: str) -> None:
        with self._lock:
            self.counts[outcome] = self.counts.get(outcome, 0) + 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)


@dataclass(frozen=True)
class RemoteRerankerConfig:
    url: str
    api: Api = DEFAULT_API
    model: str = ""
    key: str = ""
    depth: int = DEFAULT_DEPTH
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"reranker url must be http(s): {self.url!r}")
        if self.api not in APIS:
            raise ValueError(f"reranker api must be one of {', '.join(APIS)}: {self.api!r}")
        if self.depth < 1 or self.timeout_s <= 0:
            raise ValueError("reranker depth must be at least 1 and its timeout positive")


class RemoteReranker:
    """Reorders the best candidates by a rerank server's scores."""

    name = "remote"

    def __init__(self, config: RemoteRerankerConfig, client: httpx.Client | None = None) -> None:
        self.config = config
        self.stats = RerankerStats()
        self._api: Api = config.api
        headers = {"Authorization": f"Bearer {config.key}"} if config.key else {}
        self._client = client or httpx.Client(timeout=config.timeout_s, headers=headers)

    @property
    def api(self) -> Api:
        """The request shape in use: `auto` until the first answer says which."""
        return self._api

    def close(self) -> None:
        self._client.close()

    def rerank(
        self, query: Query, ranked: Sequence[Candidate], passages: Passages
    ) -> list[Candidate]:
        head, tail = list(ranked[: self.config.depth]), list(ranked[self.config.depth :])
        if len(head) < 2:
            return list(ranked)
        found = passages(head)
        documents = [_document(found.get(c.chunk_id)) for c in head]
        try:
            scores = self._scores(query.text, documents)
        except httpx.TimeoutException as e:
            self.stats.count("timeout")
            raise RerankerUnavailable(f"reranker at {self.config.url} timed out") from e
        except (httpx.HTTPError, ValueError) as e:
            self.stats.count("error")
            raise RerankerUnavailable(f"reranker at {self.config.url} failed: {e}") from e
        self.stats.count("ok")
        order = sorted(range(len(head)), key=lambda i: (-scores.get(i, float("-inf")), i))
        reordered = [dataclasses.replace(head[i], rerank=scores.get(i)) for i in order]
        return reordered + tail

    def _scores(self, query: str, documents: list[str]) -> dict[int, float]:
        """Scores by index in `documents`; a server that caps `top_n` may leave some out,
        and those follow the scored ones in their fused order."""
        api = self._api
        response = self._post(query, documents, "rerank" if api == "auto" else api)
        if api == "auto" and response.status_code in (400, 422):
            response = self._post(query, documents, "tei")
            api = "tei"
        response.raise_for_status()
        scores = _read_scores(response.json(), len(documents))
        self._api = "rerank" if api == "auto" else api
        return scores

    def _post(self, query: str, documents: list[str], api: Api) -> httpx.Response:
        body: dict[str, Any]
        if api == "tei":
            body = {"query": query, "texts": documents, "truncate": True}
        else:
            body = {"query": query, "documents": documents, "top_n": len(documents)}
            if self.config.model:
                body["model"] = self.config.model
        return self._client.post(self.config.url, json=body)


def _document(passage: Any) -> str:
    if passage is None:
        return ""
    text = f"{passage.title}\n{passage.text}" if passage.title else passage.text
    return str(text)[:PASSAGE_CHARS]


def _read_scores(payload: Any, count: int) -> dict[int, float]:
    """Scores from either answer shape; raises ValueError for anything else."""
    rows = payload.get("results") if isinstance(payload, Mapping) else payload
    if not isinstance(rows, list):
        raise ValueError("the answer holds no list of results")
    scores: dict[int, float] = {}
    for row in rows:
        if not isinstance(row, Mapping):
            raise ValueError("a result is not an object")
        index = row.get("index")
        score = row.get("relevance_score", row.get("score"))
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            raise ValueError(f"a result's index is not one of the {count} documents: {index!r}")
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise ValueError(f"a result's score is not a number: {score!r}")
        scores[index] = float(score)
    if not scores:
        raise ValueError("no document was scored")
    return scores
