"""Embedding servers of one's own: query and document prefixes, concurrent batches."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openai
import pytest

from chat.settings import Settings
from chat.wiring import Wiring
from ingest.embedders.base import EmbedderError, WordPieces, model_dir
from ingest.embedders.openai_embedder import OpenAIEmbedder, Prefixes
from tests.fakes.base import Reply, Request
from tests.fakes.openai import FakeOpenAI


@pytest.fixture(scope="module")
def word_pieces() -> WordPieces:
    return WordPieces(model_dir())


class InFlight:
    """Wraps the fake server's embeddings route: each batch takes `delay_s`, and the most
    requests in flight at once is kept."""

    def __init__(self, server: FakeOpenAI, delay_s: float) -> None:
        self.inner = server.routes[("POST", "/v1/embeddings")]
        self.delay_s = delay_s
        self.now = 0
        self.most = 0
        self.lock = threading.Lock()
        server.routes[("POST", "/v1/embeddings")] = self

    def __call__(self, request: Request, reply: Reply) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(self.delay_s)
        with self.lock:
            self.now -= 1
        self.inner(request, reply)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dimension=16) as fake:
        yield fake


def client(server: FakeOpenAI) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)


def test_each_role_sends_its_own_prefix_and_the_name_records_both(
    server: FakeOpenAI, word_pieces: WordPieces
) -> None:
    prefixes = Prefixes(query="query: ", document="passage: ")
    documents = OpenAIEmbedder(client(server), "e5", tokens=word_pieces, prefixes=prefixes)
    questions = OpenAIEmbedder(
        client(server), "e5", tokens=word_pieces, prefixes=prefixes, role="query"
    )

    documents.embed(["Dense retrieval."])
    vector = questions.embed(["what is dense retrieval?"])

    sent = [r.body["input"] for r in server.requests]
    assert sent == [["passage: Dense retrieval."], ["query: what is dense retrieval?"]]
    expected = server.vector_for("query: what is dense retrieval?")
    np.testing.assert_allclose(vector[0], expected / np.linalg.norm(expected), atol=1e-6)
    assert documents.name == questions.name
    assert documents.name != OpenAIEmbedder(client(server), "e5", tokens=word_pieces).name
    assert OpenAIEmbedder(client(server), "e5", tokens=word_pieces).name == "openai/e5"
    # Token counts (chunk sizes) are of the text itself.
    assert documents.count_tokens("Dense retrieval.") == word_pieces.count("Dense retrieval.")


def test_concurrent_batches_keep_the_input_order(
    server: FakeOpenAI, word_pieces: WordPieces
) -> None:
    watch = InFlight(server, delay_s=0.05)
    texts = [f"text number {n}" for n in range(40)]
    embedder = OpenAIEmbedder(client(server), "m", batch_size=4, tokens=word_pieces, concurrency=4)

    vectors = embedder.embed(texts)

    expected = np.vstack([server.vector_for(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert watch.most == 4
    assert len(server.requests) == 10


def test_one_batch_at_a_time_by_default(server: FakeOpenAI, word_pieces: WordPieces) -> None:
    watch = InFlight(server, delay_s=0.02)
    OpenAIEmbedder(client(server), "m", batch_size=2, tokens=word_pieces).embed(["a", "b", "c"])
    assert watch.most == 1


def test_a_failing_batch_fails_the_whole_call_naming_the_endpoint(
    server: FakeOpenAI, word_pieces: WordPieces
) -> None:
    server.fail_with(500, "overloaded", times=1)
    embedder = OpenAIEmbedder(client(server), "m", batch_size=1, tokens=word_pieces, concurrency=3)
    with pytest.raises(EmbedderError, match=server.base_url):
        embedder.embed(["a", "b", "c"])


def test_a_concurrency_below_one_is_refused(word_pieces: WordPieces) -> None:
    with pytest.raises(EmbedderError, match="at least 1"):
        OpenAIEmbedder(openai.OpenAI(api_key="k"), "m", tokens=word_pieces, batch_size=0)
    with pytest.raises(EmbedderError, match="at least 1"):
        OpenAIEmbedder(openai.OpenAI(api_key="k"), "m", tokens=word_pieces, concurrency=0)


def test_wiring_gives_documents_and_questions_their_prefixes_on_the_embeddings_url(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        embeddings="openai",
        embeddings_model="bge",
        embeddings_url=server.base_url,
        embeddings_query_prefix="Represent this sentence for searching relevant passages: ",
        embeddings_concurrency=2,
        embeddings_batch=1,
        openai_base_url="http://127.0.0.1:9/v1",  # the chat model's server: not asked
    )
    wiring = Wiring(settings)
    try:
        wiring.embedder.embed(["A passage.", "Another."])
        wiring.query_embedder.embed(["a question?"])
        assert wiring.embedder.name == wiring.query_embedder.name
        assert isinstance(wiring.embedder, OpenAIEmbedder)
        assert wiring.embedder.concurrency == 2
    finally:
        wiring.close()
    assert sorted(r.body["input"][0] for r in server.requests[:2]) == ["A passage.", "Another."]
    assert [r.body["input"] for r in server.requests[2:]] == [
        ["Represent this sentence for searching relevant passages: a question?"],
    ]
