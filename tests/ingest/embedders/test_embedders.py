from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openai
import pytest
from transformers import AutoTokenizer

from ingest.embedders.base import MODEL_NAME, EmbedderError, WordPieces, model_dir
from ingest.embedders.onnx_embedder import OnnxEmbedder
from ingest.embedders.openai_embedder import OpenAIEmbedder
from ingest.embedders.torch_embedder import TorchEmbedder
from tests.fakes.openai import FakeOpenAI
from tests.support.data import ABSTRACTS


def _real_texts(count: int) -> list[str]:
    texts = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            texts.append(f"{record['title']}\n{record['abstract']}")
            if len(texts) == count:
                return texts
    return texts


@pytest.fixture(scope="module")
def abstracts() -> list[str]:
    return _real_texts(70)


@pytest.fixture(scope="module")
def torch_embedder() -> TorchEmbedder:
    return TorchEmbedder(threads=2)


@pytest.fixture(scope="module")
def int8_embedder(models_cache: Path) -> OnnxEmbedder:
    return OnnxEmbedder(models_cache, threads=2)


@pytest.fixture(scope="module")
def word_pieces() -> WordPieces:
    return WordPieces(model_dir())


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dimension=48) as server:
        yield server


def _client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="test-key", max_retries=0, timeout=5)


@pytest.fixture
def client(fake_openai: FakeOpenAI) -> Iterator[openai.OpenAI]:
    with _client(fake_openai.base_url) as opened:
        yield opened


def _long_text(abstracts: list[str], word_pieces: WordPieces, at_least: int) -> str:
    text = ""
    for abstract in abstracts:
        text = f"{text} {abstract}"
        if word_pieces.count(text) >= at_least:
            return text
    raise AssertionError(f"the abstracts hold fewer than {at_least} word pieces")


def test_torch_embedder_gives_normalised_384_dim_float32_rows(
    torch_embedder: TorchEmbedder, abstracts: list[str]
) -> None:
    vectors = torch_embedder.embed(abstracts[:5])

    assert vectors.shape == (5, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert torch_embedder.name == MODEL_NAME
    assert torch_embedder.max_tokens == 256


def test_similar_texts_score_higher_than_unrelated_ones(torch_embedder: TorchEmbedder) -> None:
    query, paraphrase, unrelated = torch_embedder.embed(
        [
            "A transformer model for translating English into German.",
            "Neural machine translation with self-attention between languages.",
            "A recipe for baking sourdough bread at home.",
        ]
    )

    assert float(query @ paraphrase) > float(query @ unrelated) + 0.3


def test_rows_come_back_in_input_order_across_length_sorted_batches(
    torch_embedder: TorchEmbedder, abstracts: list[str]
) -> None:
    # 70 texts of mixed length: two batches, each sorted by length.
    texts = [text[: 20 + 11 * i] for i, text in enumerate(abstracts)]

    together = torch_embedder.embed(texts)
    alone = np.vstack([torch_embedder.embed([texts[i]]) for i in (0, 33, 64, 69)])

    cosines = np.sum(together[[0, 33, 64, 69]] * alone, axis=1)
    assert cosines.min() > 0.9999


def test_embedding_no_texts_gives_an_empty_matrix(torch_embedder: TorchEmbedder) -> None:
    vectors = torch_embedder.embed([])

    assert vectors.shape == (0, 384)


def test_count_tokens_matches_the_model_tokenizer_without_special_tokens(
    torch_embedder: TorchEmbedder, abstracts: list[str]
) -> None:
    reference = AutoTokenizer.from_pretrained(str(model_dir()), local_files_only=True)
    long_text = " ".join(abstracts[:4])

    counts = [torch_embedder.count_tokens(t) for t in [*abstracts[:5], long_text]]

    expected = [
        len(reference(t, add_special_tokens=False)["input_ids"])
        for t in [*abstracts[:5], long_text]
    ]
    assert counts == expected
    assert counts[-1] > 256


def test_word_pieces_past_256_do_not_change_the_vector(
    torch_embedder: TorchEmbedder, abstracts: list[str], word_pieces: WordPieces
) -> None:
    long_text = _long_text(abstracts, word_pieces, at_least=300)

    head, with_tail = torch_embedder.embed([long_text, f"{long_text} Sourdough bread recipes."])

    assert float(head @ with_tail) > 0.99999
    input_ids, _ = word_pieces.encode_batch([long_text])
    assert input_ids.shape == (1, 256)


def test_int8_onnx_vectors_match_torch_on_real_abstracts(
    torch_embedder: TorchEmbedder, int8_embedder: OnnxEmbedder, abstracts: list[str]
) -> None:
    texts = abstracts[:50]

    cosines = np.sum(torch_embedder.embed(texts) * int8_embedder.embed(texts), axis=1)

    assert cosines.mean() >= 0.99
    assert cosines.min() >= 0.985
    assert int8_embedder.count_tokens(texts[0]) == torch_embedder.count_tokens(texts[0])


def test_second_onnx_build_reuses_the_cached_export(
    int8_embedder: OnnxEmbedder, models_cache: Path
) -> None:
    before = int8_embedder.model_path.stat().st_mtime_ns

    again = OnnxEmbedder(models_cache, threads=1)

    assert again.model_path == int8_embedder.model_path
    assert again.model_path.stat().st_mtime_ns == before


def test_a_corrupt_cached_export_is_rebuilt(
    tmp_path: Path, torch_embedder: TorchEmbedder, abstracts: list[str]
) -> None:
    first = OnnxEmbedder(tmp_path, quantize=False, threads=2)
    first.model_path.write_bytes(b"not an onnx model")

    rebuilt = OnnxEmbedder(tmp_path, quantize=False, threads=2)

    assert rebuilt.model_path == first.model_path
    assert rebuilt.model_path.stat().st_size > 1_000_000
    cosines = np.sum(rebuilt.embed(abstracts[:3]) * torch_embedder.embed(abstracts[:3]), axis=1)
    assert cosines.min() > 0.9999
    assert not list(tmp_path.glob(".build-*"))


def test_openai_embedder_batches_and_normalises_server_vectors(
    fake_openai: FakeOpenAI, client: openai.OpenAI, word_pieces: WordPieces
) -> None:
    texts = ["first text", "a second, longer text", "third", "fourth text", "fifth"]
    embedder = OpenAIEmbedder(client, "fake-embed", batch_size=2, tokens=word_pieces)

    vectors = embedder.embed(texts)

    expected = np.vstack([fake_openai.vector_for(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert vectors.dtype == np.float32
    assert [r.body["input"] for r in fake_openai.requests] == [texts[:2], texts[2:4], texts[4:]]
    assert {r.body["model"] for r in fake_openai.requests} == {"fake-embed"}
    assert fake_openai.requests[0].headers["authorization"] == "Bearer test-key"
    assert embedder.dimension == 48
    assert embedder.name == "openai/fake-embed"


def test_openai_embedder_counts_minilm_word_pieces(
    fake_openai: FakeOpenAI, client: openai.OpenAI, word_pieces: WordPieces
) -> None:
    embedder = OpenAIEmbedder(client, tokens=word_pieces)

    count = embedder.count_tokens("Transformers tokenise text into word pieces.")

    assert count == word_pieces.count("Transformers tokenise text into word pieces.")
    assert fake_openai.requests == []


def test_openai_embedder_asks_the_endpoint_for_its_dimension(
    fake_openai: FakeOpenAI, client: openai.OpenAI, word_pieces: WordPieces
) -> None:
    embedder = OpenAIEmbedder(client, tokens=word_pieces)

    dimension = embedder.dimension

    assert dimension == 48
    assert len(fake_openai.requests) == 1


def test_failing_server_raises_embedder_error_naming_the_endpoint(
    fake_openai: FakeOpenAI, client: openai.OpenAI, word_pieces: WordPieces
) -> None:
    fake_openai.fail_with(503, "overloaded", times=None)
    embedder = OpenAIEmbedder(client, tokens=word_pieces)

    with pytest.raises(EmbedderError, match=r"127\.0\.0\.1.*overloaded") as raised:
        embedder.embed(["some text"])

    assert isinstance(raised.value.__cause__, openai.APIStatusError)


def test_unreachable_server_raises_embedder_error(word_pieces: WordPieces) -> None:
    with FakeOpenAI() as stopped:
        base_url = stopped.base_url
    with _client(base_url) as client:
        embedder = OpenAIEmbedder(client, tokens=word_pieces)

        with pytest.raises(EmbedderError, match=base_url.split("//")[1]):
            embedder.embed(["some text"])
