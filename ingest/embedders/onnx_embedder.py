"""all-MiniLM-L6-v2 run by onnxruntime from a cached ONNX export (int8 or fp32).

The export is built once per (model files, onnxruntime version, recipe) and
kept under `cache_dir` as `minilm-<key>.onnx` plus `minilm-<key>.json`, the
manifest holding the model file's sha256. Both are moved into place by
rename and the manifest last, so an entry whose manifest is missing or does
not match its file (a killed build, a damaged disk) is simply rebuilt.
"""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import onnxruntime as ort
from onnxruntime.capi.onnxruntime_pybind11_state import (
    Fail,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    NoSuchFile,
)

from ingest.disk import DiskFull, free_bytes
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
)
from ingest.embedders.quantisation import INT8, Int8Recipe, quantise_int8

# The files that define the exported graph; the tokenizer is read at run time.
_GRAPH_FILES = ("config.json", "model.safetensors", "1_Pooling/config.json")
# Bump when `onnx_export` changes the graph; it is part of the key, as is the int8 recipe.
EXPORT_RECIPE = "mean-l2/dynamo/1"
_STALE_BUILD_SECONDS = 3600
# A build writes the fp32 graph (about the weights' size) and its int8 copy (a quarter of
# it) in a scratch folder beside the cache: room for twice the weights is asked for first.
_BUILD_ROOM_FACTOR = 2
_ORT_ERRORS = (Fail, InvalidArgument, InvalidGraph, InvalidProtobuf, NoSuchFile)

# onnxruntime's CPU arena keeps the largest batch's buffers: batches of 64
# full-length texts held 2-3 GB, batches of 16 hold ~0.7 GB at the same speed.
ONNX_BATCH_SIZE = 16


class OnnxEmbedder:
    """The packaged MiniLM through onnxruntime; int8 weights unless `quantize=False`."""

    name = MODEL_NAME
    dimension = MODEL_DIMENSION
    max_tokens = MODEL_MAX_TOKENS

    def __init__(
        self,
        cache_dir: Path,
        *,
        quantize: bool = True,
        threads: int | None = None,
        directory: Path | None = None,
        recipe: Int8Recipe = INT8,
        name: str = MODEL_NAME,
    ) -> None:
        """`directory` and `name`: another model of the same architecture (a fine-tuned
        one, `ingest.embedders.training`) and the name its index records."""
        self.name = name
        directory = directory or model_dir()
        self._tokens = WordPieces(directory, self.max_tokens)
        self.model_path = cached_onnx_model(directory, cache_dir, quantize=quantize, recipe=recipe)
        self._session = _open_session(self.model_path, threads)

    def embed(self, texts: Sequence[str]) -> Vectors:
        return embed_length_sorted(
            texts, self._embed_batch, batch_size=ONNX_BATCH_SIZE, dimension=self.dimension
        )

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def _embed_batch(self, batch: list[str]) -> Vectors:
        input_ids, attention_mask = self._tokens.encode_batch(batch)
        feed = {"input_ids": input_ids, "attention_mask": attention_mask}
        try:
            (vectors,) = self._session.run(["sentence_embedding"], feed)
        except _ORT_ERRORS as e:
            raise EmbedderError(f"onnxruntime failed on {str(self.model_path)!r}: {e}") from e
        return normalise(vectors)


def cached_onnx_model(
    directory: Path, cache_dir: Path, *, quantize: bool, recipe: Int8Recipe = INT8
) -> Path:
    """Path of the intact cached export for `directory`, building it if needed."""
    key = cache_key(directory, quantize=quantize, recipe=recipe)
    stem = f"minilm-{'int8' if quantize else 'fp32'}-{key}"
    model = cache_dir / f"{stem}.onnx"
    manifest = cache_dir / f"{stem}.json"
    if not _is_intact(model, manifest):
        _build(directory, model, manifest, recipe if quantize else None)
    return model


def cache_key(directory: Path, *, quantize: bool, recipe: Int8Recipe = INT8) -> str:
    """Hash of the graph's source files, the onnxruntime version and the recipes."""
    quantisation = recipe.describe() if quantize else "fp32"
    digest = hashlib.sha256(f"{EXPORT_RECIPE}|{quantisation}|{ort.__version__}".encode())
    for name in _GRAPH_FILES:
        path = directory / name
        try:
            digest.update(name.encode() + b"\0" + _file_sha256(path).encode())
        except OSError as e:
            raise EmbedderError(f"cannot read model file {str(path)!r}: {e}") from e
    return digest.hexdigest()[:16]


def _is_intact(model: Path, manifest: Path) -> bool:
    try:
        recorded = json.loads(manifest.read_text(encoding="utf-8"))["sha256"]
        return bool(recorded == _file_sha256(model))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _build(directory: Path, model: Path, manifest: Path, recipe: Int8Recipe | None) -> None:
    """Export (and with a recipe, quantise) into a scratch folder, then move into place."""
    from ingest.embedders.onnx_export import export_onnx  # imported here: it imports torch

    cache_dir = model.parent
    _check_room(directory, cache_dir)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        _remove_stale_builds(cache_dir)
        with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".build-") as scratch:
            built = Path(scratch) / "fp32.onnx"
            export_onnx(directory, built)
            if recipe is not None:
                quantise_int8(built, Path(scratch) / "int8.onnx", recipe)
                built = Path(scratch) / "int8.onnx"
            record = {"sha256": _file_sha256(built), "source": str(directory)}
            written = Path(scratch) / "manifest.json"
            written.write_text(json.dumps(record, indent=2), encoding="utf-8")
            built.replace(model)
            written.replace(manifest)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(_no_room(cache_dir, _needed_bytes(directory))) from e
        raise EmbedderError(f"cannot write ONNX cache in {str(cache_dir)!r}: {e}") from e


def _needed_bytes(directory: Path) -> int:
    weights = sum((directory / name).stat().st_size for name in _GRAPH_FILES)
    return _BUILD_ROOM_FACTOR * weights


def _no_room(cache_dir: Path, needed: int) -> str:
    free = free_bytes(cache_dir) or 0
    return (
        f"the disk holding {str(cache_dir)!r} is full ({free / 2**20:.1f} MB free): preparing "
        f"the embedding model there needs about {needed / 2**20:.0f} MB; make room, or set "
        "PAPERCHAT_MODELS_CACHE to a folder on another disk, and run the command again"
    )


def _check_room(directory: Path, cache_dir: Path) -> None:
    """DiskFull, at once, when the cache's disk has less room than a build writes: the
    export would run for minutes before its write failed."""
    try:
        needed = _needed_bytes(directory)
    except OSError as e:
        raise EmbedderError(f"cannot read the model files in {str(directory)!r}: {e}") from e
    free = free_bytes(cache_dir)
    if free is not None and free < needed:
        raise DiskFull(_no_room(cache_dir, needed))


def _remove_stale_builds(cache_dir: Path) -> None:
    """Scratch folders of builds that were killed an hour or more ago."""
    cutoff = time.time() - _STALE_BUILD_SECONDS
    for scratch in cache_dir.glob(".build-*"):
        if scratch.is_dir() and scratch.stat().st_mtime < cutoff:
            shutil.rmtree(scratch, ignore_errors=True)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _open_session(path: Path, threads: int | None) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or 0
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only; onnxruntime's warnings go to stderr
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except _ORT_ERRORS as e:
        raise EmbedderError(f"cannot open ONNX model {str(path)!r}: {e}") from e
