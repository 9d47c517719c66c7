"""Any OpenAI-compatible `/embeddings` endpoint as an embedder (`PAPERCHAT_EMBEDDINGS=openai`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import openai

from ingest.embedders.base import (
    MODEL_MAX_TOKENS,
    EmbedderError,
    Vectors,
    WordPieces,
    model_dir,
    normalise,
)

DEFAULT_OPENAI_MODEL = "text-embedding-3-small"


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint; counts tokens with MiniLM's tokenizer."""

    def __init__(
        self,
        client: openai.OpenAI,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        batch_size: int = 128,
        max_tokens: int = MODEL_MAX_TOKENS,
        tokens: WordPieces | None = None,
    ) -> None:
        self.name = f"openai/{model}"
        self.model = model
        self.max_tokens = max_tokens
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
        batches = [
            self._embed_batch(list(texts[start : start + self._batch_size]))
            for start in range(0, len(texts), self._batch_size)
        ]
        if not batches:
            return np.empty((0, self._dimension or 0), dtype=np.float32)
        return np.concatenate(batches)

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def _embed_batch(self, batch: list[str]) -> Vectors:
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
        if self._dimension is None:
            self._dimension = dimension
        elif dimension != self._dimension:
            raise EmbedderError(
                f"{self.endpoint!r} returned {dimension}-d vectors after {self._dimension}-d ones"
            )


def default_openai_client() -> openai.OpenAI:
    """A client configured by the environment (OPENAI_API_KEY, OPENAI_BASE_URL)."""
    try:
        return openai.OpenAI()
    except openai.OpenAIError as e:
        raise EmbedderError(f"cannot build an OpenAI client from the environment: {e}") from e
