"""The embedders by settings key: `build_embedder("onnx", ...)` gives the configured one.

The keys are the values of `PAPERCHAT_EMBEDDER_BACKEND` (`onnx`, `onnx-fp32`,
`torch`), which say how the packaged model runs, and `openai` for
`PAPERCHAT_EMBEDDINGS=openai`, an OpenAI-compatible endpoint.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import openai

from ingest.embedders.base import Embedder, EmbedderError
from ingest.embedders.openai_embedder import (
    DEFAULT_BATCH,
    DEFAULT_CONCURRENCY,
    DEFAULT_OPENAI_MODEL,
    OpenAIEmbedder,
    Prefixes,
    Role,
    default_openai_client,
)
from ingest.embedders.torch_embedder import TorchEmbedder
from ingest.embedders.training import trained_name


@dataclass(frozen=True)
class EmbedderOptions:
    """What an embedder may be built with; each one reads the fields it needs."""

    cache_dir: Path
    threads: int | None = None
    openai_model: str = DEFAULT_OPENAI_MODEL
    openai_client: openai.OpenAI | None = None
    prefixes: Prefixes = field(default_factory=Prefixes)
    role: Role = "document"
    concurrency: int = DEFAULT_CONCURRENCY
    batch_size: int = DEFAULT_BATCH
    # A model trained by `paperchat embedder train` instead of the packaged one.
    model: Path | None = None

    def local_model(self) -> dict[str, Any]:
        """The keyword arguments naming a trained model for the local embedders."""
        if self.model is None:
            return {}
        return {"directory": self.model, "name": trained_name(self.model)}


Factory = Callable[[EmbedderOptions], Embedder]


def _torch(options: EmbedderOptions) -> Embedder:
    return TorchEmbedder(threads=options.threads, **options.local_model())


def _onnx_int8(options: EmbedderOptions) -> Embedder:
    # Imported here, as in `_onnx_fp32`: the module imports onnxruntime, which
    # the torch and openai embedders (and commands that embed nothing) do without.
    from ingest.embedders.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder(
        options.cache_dir, quantize=True, threads=options.threads, **options.local_model()
    )


def _onnx_fp32(options: EmbedderOptions) -> Embedder:
    from ingest.embedders.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder(
        options.cache_dir, quantize=False, threads=options.threads, **options.local_model()
    )


def _openai(options: EmbedderOptions) -> Embedder:
    client = options.openai_client or default_openai_client()
    return OpenAIEmbedder(
        client,
        options.openai_model,
        prefixes=options.prefixes,
        role=options.role,
        concurrency=options.concurrency,
        batch_size=options.batch_size,
    )


EMBEDDERS: Mapping[str, Factory] = MappingProxyType(
    {"onnx": _onnx_int8, "onnx-fp32": _onnx_fp32, "torch": _torch, "openai": _openai}
)


def build_embedder(
    key: str,
    *,
    cache_dir: Path,
    threads: int | None = None,
    openai_model: str = DEFAULT_OPENAI_MODEL,
    openai_client: openai.OpenAI | None = None,
    prefixes: Prefixes | None = None,
    role: Role = "document",
    concurrency: int = DEFAULT_CONCURRENCY,
    batch_size: int = DEFAULT_BATCH,
    model: Path | None = None,
) -> Embedder:
    """The embedder registered under `key`; `cache_dir` holds derived model files (ONNX).
    `prefixes`, `role`, `concurrency` and `batch_size` are read by the embeddings-server
    embedder only; `model`, a trained model's folder, by the local ones."""
    if key not in EMBEDDERS:
        raise EmbedderError(f"unknown embedder {key!r}; known: {', '.join(EMBEDDERS)}")
    options = EmbedderOptions(
        cache_dir,
        threads,
        openai_model,
        openai_client,
        prefixes or Prefixes(),
        role,
        concurrency,
        batch_size,
        model,
    )
    return EMBEDDERS[key](options)
