"""Any OpenAI-compatible `/embeddings` endpoint as an embedder (`PAPERCHAT_EMBEDDINGS=openai`).

OpenAI itself, or a server of one's own (TEI, vLLM, Infinity). Models such as
e5 and bge read questions and passages with different prefixes (`query: `,
`passage: `): `Prefixes` holds both, and each embedder is built for one
`role`. The prefixes are part of the embedder's name, which the index
records, so a collection is never queried with vectors made another way.
Batches go to the server `concurrency` at a time, in input order.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from ingest.embedders.base import (
    MODEL_MAX_TOKENS,
    EmbedderError,
    Vectors,
    WordPieces,
    model_dir,
    normalise,
)

if TYPE_CHECKING:  # the client is made where it is used: reading the defaults stays light
    import openai

DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
# Texts per request: what TEI accepts by default (`--max-client-batch-size`).
DEFAULT_BATCH = 32
# Requests in flight at once.
DEFAULT_CONCURRENCY = 1

Role = Literal["document", "query"]


@dataclass(frozen=True)
class Prefixes:
    query: str = ""
    document: str = ""

    def for_role(self, role: Role) -> str:
        return self.query if role == "query" else self.document

    def identity(self) -> str:
        """What the embedder's name adds: nothing without prefixes (names stay as they were)."""
        if not (self.query or self.document):
            return ""
        return f" [query={self.query!r} document={self.document!r}]"


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint; counts tokens with MiniLM's tokenizer."""

    def __init__(
        self,
        client: openai.OpenAI,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        batch_size: int = DEFAULT_BATCH,
        max_tokens: int = MODEL_MAX_TOKENS,
        tokens: WordPieces | None = None,
        prefixes: Prefixes | None = None,
        role: Role = "document",
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        if concurrency < 1 or batch_size < 1:
            raise EmbedderError(
                f"embedding concurrency and batch size must be at least 1, "
                f"not {concurrency} and {batch_size}"
            )
        self.prefixes = prefixes or Prefixes()
        self.name = f"openai/{model}{self.prefixes.identity()}"
        self.model = model
        self.max_tokens = max_tokens
        self.role: Role = role
        self.concurrency = concurrency
        self._prefix = self.prefixes.for_role(role)
        self._client = client
        self._batch_size = batch_size
        self._tokens = tokens or WordPieces(model_dir())
        self._dimension: int | None = None

    @property
    def endpoint(self) -> str:
        return str(self._client.base_url)

    @property
    def dimension(self) -> int:
        """Known after the first request; asked of the endpoint if needed."""
        if self._dimension is None:
            return int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        prefixed = [self._prefix + t for t in texts] if self._prefix else list(texts)
        windows = [
            prefixed[start : start + self._batch_size]
            for start in range(0, len(prefixed), self._batch_size)
        ]
        if not windows:
            return np.empty((0, self._dimension or 0), dtype=np.float32)
        if self.concurrency == 1 or len(windows) == 1:
            batches = [self._embed_batch(w) for w in windows]
        else:
            # The client is thread-safe; map keeps the input order and re-raises the first error.
            with ThreadPoolExecutor(min(self.concurrency, len(windows))) as pool:
                batches = list(pool.map(self._embed_batch, windows))
        return np.concatenate(batches)

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def _embed_batch(self, batch: list[str]) -> Vectors:
        import openai

        try:
            response = self._client.embeddings.create(
                model=self.model, input=batch, encoding_format="float"
            )
        except openai.OpenAIError as e:
            raise EmbedderError(f"embedding request to {self.endpoint!r} failed: {e}") from e
        items = sorted(response.data, key=lambda item: item.index)
        if len(items) != len(batch):
            raise EmbedderError(
                f"{self.endpoint!r} returned {len(items)} vectors for {len(batch)} texts"
            )
        vectors = normalise([item.embedding for item in items])
        self._check_dimension(vectors.shape[1])
        return vectors

    def _check_dimension(self, dimension: int) -> None:
        # Batches may finish on several threads at once: the first to arrive sets it.
        if self._dimension is None:
            self._dimension = dimension
        elif dimension != self._dimension:
            raise EmbedderError(
                f"{self.endpoint!r} returned {dimension}-d vectors after {self._dimension}-d ones"
            )


def default_openai_client() -> openai.OpenAI:
    """A client configured by the environment (OPENAI_API_KEY, OPENAI_BASE_URL)."""
    import openai

    try:
        return openai.OpenAI()
    except openai.OpenAIError as e:
        raise EmbedderError(f"cannot build an OpenAI client from the environment: {e}") from e
