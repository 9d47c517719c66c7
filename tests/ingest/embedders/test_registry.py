from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from ingest.embedders.base import MODEL_NAME, EmbedderError
from ingest.embedders.onnx_embedder import OnnxEmbedder
from ingest.embedders.openai_embedder import OpenAIEmbedder
from ingest.embedders.registry import EMBEDDERS, build_embedder
from ingest.embedders.torch_embedder import TorchEmbedder
from tests.fakes.openai import FakeOpenAI

# A first run exports the packaged model to ONNX, twice (int8 and fp32).
pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dimension=48) as server:
        yield server


@pytest.fixture
def client(fake_openai: FakeOpenAI) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        base_url=fake_openai.base_url, api_key="test-key", max_retries=0, timeout=5
    ) as opened:
        yield opened


def test_the_registry_knows_the_backends_and_openai() -> None:
    keys = list(EMBEDDERS)

    assert keys == ["onnx", "onnx-fp32", "torch", "openai"]


@pytest.mark.parametrize(
    ("key", "weights"), [("onnx", "minilm-int8-"), ("onnx-fp32", "minilm-fp32-")]
)
def test_onnx_keys_build_the_onnx_embedder_with_their_weights(
    key: str, weights: str, models_cache: Path
) -> None:
    embedder = build_embedder(key, cache_dir=models_cache, threads=1)

    assert type(embedder) is OnnxEmbedder
    assert embedder.name == MODEL_NAME
    assert embedder.model_path.parent == models_cache
    assert embedder.model_path.name.startswith(weights)


def test_torch_key_builds_the_sentence_transformers_embedder(tmp_path: Path) -> None:
    embedder = build_embedder("torch", cache_dir=tmp_path)

    assert type(embedder) is TorchEmbedder
    assert embedder.name == MODEL_NAME
    assert list(tmp_path.iterdir()) == []


def test_openai_key_builds_an_openai_embedder_for_the_given_client(
    fake_openai: FakeOpenAI, client: openai.OpenAI, tmp_path: Path
) -> None:
    embedder = build_embedder(
        "openai", cache_dir=tmp_path, openai_model="fake-embed", openai_client=client
    )

    vectors = embedder.embed(["hello"])

    assert type(embedder) is OpenAIEmbedder
    assert embedder.name == "openai/fake-embed"
    assert vectors.shape == (1, 48)
    assert fake_openai.requests[0].body["model"] == "fake-embed"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("key", ["local", "tensorflow", "ONNX", ""])
def test_an_unknown_key_is_refused_naming_the_known_ones(key: str, tmp_path: Path) -> None:
    with pytest.raises(EmbedderError) as raised:
        build_embedder(key, cache_dir=tmp_path)

    assert str(raised.value) == f"unknown embedder {key!r}; known: onnx, onnx-fp32, torch, openai"
