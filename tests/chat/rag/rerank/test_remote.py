"""The reranking model's server: both request shapes, the fallback to the fused order, metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import pytest

from chat.rag.rerank.remote import RemoteReranker, RemoteRerankerConfig
from chat.rag.rerank.reranker import Passage, Query, RerankerUnavailable
from chat.rag.retrieval.fusion import Candidate
from chat.service.metrics import Metrics, render
from chat.settings import SettingsError, get_settings
from chat.wiring import Wiring
from tests.fakes.reranker import FakeReranker

TEXTS = {
    "a": "Dense retrieval with dual encoders.",
    "b": "A survey of convolutional networks for images.",
    "c": "Retrieval augmented generation retrieves passages for generation.",
    "d": "Speech recognition with transformers.",
}


def candidates(ids: Sequence[str] = ("a", "b", "c", "d")) -> list[Candidate]:
    return [Candidate(i, f"paper-{i}", score=1.0 / n) for n, i in enumerate(ids, start=1)]


def passages(given: Sequence[Candidate]) -> Mapping[str, Passage]:
    return {
        c.chunk_id: Passage(c.chunk_id, f"Title {c.chunk_id}", TEXTS[c.chunk_id]) for c in given
    }


QUERY = Query("retrieval augmented generation", {})


MakeReranker = Callable[..., RemoteReranker]


@pytest.fixture
def reranker() -> Iterator[MakeReranker]:
    """Makes clients of a fake server (`reranker(server, **options)`), closed after the test."""
    made: list[RemoteReranker] = []

    def make(server: FakeReranker, **options: object) -> RemoteReranker:
        config = RemoteRerankerConfig(server.url, **options)  # type: ignore[arg-type]
        made.append(RemoteReranker(config))
        return made[-1]

    yield make
    for model in made:
        model.close()


@pytest.mark.parametrize("api", ["rerank", "tei"])
def test_the_model_orders_the_candidates_by_its_scores(api: str, reranker: MakeReranker) -> None:
    with FakeReranker(api=api) as server:  # type: ignore[arg-type]
        model = reranker(server, api=api, model="bge-reranker")
        ranked = model.rerank(QUERY, candidates(), passages)
    assert [c.chunk_id for c in ranked][:2] == ["c", "a"]
    assert [c.rerank for c in ranked] == sorted((c.rerank or 0 for c in ranked), reverse=True)
    body = server.requests[0].body
    if api == "tei":
        assert body["texts"][0] == f"Title a\n{TEXTS['a']}"
        assert "documents" not in body
    else:
        assert body["documents"][2] == f"Title c\n{TEXTS['c']}"
        assert body["model"] == "bge-reranker"
        assert body["top_n"] == 4


def test_auto_finds_a_tei_server_once_and_keeps_its_shape(reranker: MakeReranker) -> None:
    with FakeReranker(api="tei") as server:
        model = reranker(server)
        first = model.rerank(QUERY, candidates(), passages)
        second = model.rerank(QUERY, candidates(), passages)
    assert model.api == "tei"
    # rerank shape refused (422), then tei; the second question goes straight to tei.
    assert ["documents" in r.body for r in server.requests] == [True, False, False]
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert first[0].chunk_id == "c"


def test_only_the_best_depth_are_sent_and_the_rest_keep_their_fused_order(
    reranker: MakeReranker,
) -> None:
    ids = ("b", "d", "a", "c")
    with FakeReranker(favourite="Speech") as server:
        ranked = reranker(server, depth=2).rerank(QUERY, candidates(ids), passages)
    assert len(server.requests[0].body["documents"]) == 2
    assert [c.chunk_id for c in ranked] == ["d", "b", "a", "c"]
    assert ranked[2].rerank is None


def test_the_api_key_is_sent_as_a_bearer_token(reranker: MakeReranker) -> None:
    with FakeReranker() as server:
        reranker(server, key="rk-secret").rerank(QUERY, candidates(), passages)
    assert server.requests[0].headers["authorization"] == "Bearer rk-secret"


@pytest.mark.parametrize(
    ("mode", "outcome"), [("error", "error"), ("garbage", "error"), ("slow", "timeout")]
)
def test_a_failing_server_raises_unavailable_and_is_counted(
    mode: str, outcome: str, reranker: MakeReranker
) -> None:
    with FakeReranker(mode=mode, delay_s=1.0) as server:  # type: ignore[arg-type]
        model = reranker(server, api="rerank", timeout_s=0.2)
        with pytest.raises(RerankerUnavailable, match=server.url):
            model.rerank(QUERY, candidates(), passages)
    assert model.stats.snapshot()[outcome] == 1
    assert model.stats.snapshot()["ok"] == 0


def test_an_unreachable_server_is_unavailable() -> None:
    with FakeReranker() as server:
        url = server.url
    model = RemoteReranker(RemoteRerankerConfig(url, timeout_s=0.5))
    with pytest.raises(RerankerUnavailable):
        model.rerank(QUERY, candidates(), passages)
    assert model.stats.snapshot()["error"] == 1


def test_the_metrics_export_the_counts(reranker: MakeReranker) -> None:
    with FakeReranker(mode="error") as server:
        model = reranker(server, api="rerank")
        metrics = Metrics()
        metrics.watch_reranker(model.stats.snapshot)
        with pytest.raises(RerankerUnavailable):
            model.rerank(QUERY, candidates(), passages)
    text = render(metrics.registry).decode()
    assert 'paperchat_reranker_requests_total{outcome="error"} 1.0' in text
    assert 'paperchat_reranker_requests_total{outcome="ok"} 0.0' in text


def test_a_reranker_url_that_is_not_http_fails_at_start_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAPERCHAT_RERANKER_URL", "ftp://models.example/rerank")
    get_settings.cache_clear()
    with pytest.raises(SettingsError, match="PAPERCHAT_RERANKER_URL"):
        get_settings()
    get_settings.cache_clear()


def test_retrieval_follows_the_model_and_falls_back_to_the_fused_order(
    small_index: Wiring,
) -> None:
    question = "How are retrieved passages used for generation?"
    fused = small_index.retriever.retrieve(question)
    last = fused.ranked[19]
    favourite = small_index.catalog.chunk_rows([last.chunk_id])[last.chunk_id].text[:60]
    settings = small_index.settings
    with FakeReranker(favourite=favourite) as server:
        wiring = Wiring(
            settings.model_copy(update={"reranker_url": server.url, "rerank_depth": 20})
        )
        try:
            reranked = wiring.retriever.retrieve(question)
            server.mode = "error"
            failed = wiring.retriever.retrieve(question)
        finally:
            wiring.close()
    assert reranked.sources[0].chunk_id == last.chunk_id
    assert {c.chunk_id for c in reranked.ranked[:20]} == {c.chunk_id for c in fused.ranked[:20]}
    assert [c.chunk_id for c in reranked.ranked[20:]] == [c.chunk_id for c in fused.ranked[20:]]
    assert reranked.degraded == ()
    assert failed.degraded == ("remote",)
    assert [s.chunk_id for s in failed.sources] == [s.chunk_id for s in fused.sources]
