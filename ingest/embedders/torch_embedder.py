"""all-MiniLM-L6-v2 in fp32, run by sentence-transformers on torch (the `torch` backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.embedders.base import (
    MODEL_DIMENSION,
    MODEL_MAX_TOKENS,
    MODEL_NAME,
    EmbedderError,
    Vectors,
    WordPieces,
    embed_length_sorted,
    model_dir,
    normalise,
    stay_offline,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

BATCH_SIZE = 64


class TorchEmbedder:
    """all-MiniLM-L6-v2 in fp32 through sentence-transformers on the CPU."""

    name = MODEL_NAME
    dimension = MODEL_DIMENSION
    max_tokens = MODEL_MAX_TOKENS

    def __init__(
        self, directory: Path | None = None, *, threads: int | None = None, name: str = MODEL_NAME
    ) -> None:
        self.name = name
        directory = directory or model_dir()
        self._tokens = WordPieces(directory, self.max_tokens)
        self._model = _load_sentence_transformer(directory, threads)
        self._model.max_seq_length = self.max_tokens

    def embed(self, texts: Sequence[str]) -> Vectors:
        return embed_length_sorted(
            texts, self._embed_batch, batch_size=BATCH_SIZE, dimension=self.dimension
        )

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def _embed_batch(self, batch: list[str]) -> Vectors:
        vectors = self._model.encode(
            batch,
            batch_size=len(batch),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return normalise(vectors)


def _load_sentence_transformer(directory: Path, threads: int | None) -> SentenceTransformer:
    stay_offline()
    # Imported here: torch is heavy and only this backend needs it at run time.
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    # Loading a local model needs no progress bar on the user's terminal.
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call] # untyped upstream
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        return SentenceTransformer(str(directory), device="cpu", local_files_only=True)
    except (OSError, ValueError) as e:
        raise EmbedderError(f"cannot load model from {str(directory)!r}: {e}") from e
