"""Fusing dense and lexical candidates: ranks, scores and the adaptations to the question."""

from __future__ import annotations

import pytest

from chat.rag.retrieval.fusion import FusionConfig, Hit, fuse, reciprocal_rank_fusion

DENSE: list[Hit] = [("d#1", "d", 0.6), ("both#1", "both", 0.5)]
LEXICAL: list[Hit] = [("l#1", "l", 12.0), ("both#1", "both", 11.0), ("x#1", "x", 10.0)]


def test_a_chunk_both_retrievers_find_comes_first() -> None:
    fused = fuse("a question", DENSE, LEXICAL, FusionConfig())

    assert fused[0].chunk_id == "both#1"
    assert fused[0].dense_rank == 2
    assert fused[0].lexical_rank == 2


def test_long_questions_give_dense_its_own_weight() -> None:
    config = FusionConfig(long_query_words=5, long_dense_weight=3.0, long_query_max_share=0.0)

    short = [c.chunk_id for c in fuse("four words question here", DENSE, LEXICAL, config)]
    long = [c.chunk_id for c in fuse("a question of five words", DENSE, LEXICAL, config)]

    assert short.index("d#1") > short.index("l#1")
    assert long.index("d#1") < long.index("l#1")


def test_a_long_question_whose_rare_words_one_passage_holds_keeps_the_usual_weights() -> None:
    config = FusionConfig(long_query_words=5, long_dense_weight=3.0, long_query_max_share=0.5)
    question = "a question of five words"

    def order(term_weight: float) -> list[str]:
        return [c.chunk_id for c in fuse(question, DENSE, LEXICAL, config, (), term_weight)]

    described = order(30.0)  # BM25's best, 12, is 0.4 of the question's weight
    named = order(20.0)  # 0.6 of it
    assert described.index("d#1") < described.index("l#1")
    assert named.index("d#1") > named.index("l#1")
    assert order(20.0) == [c.chunk_id for c in fuse("four words only here", DENSE, LEXICAL, config)]


def test_the_long_question_rule_is_on_by_default_and_can_be_turned_off() -> None:
    question = " ".join(["word"] * 20)  # the default's length; BM25's best, 12, is 0.12 of 100
    defaults = FusionConfig()
    long_weight = FusionConfig(dense_weight=defaults.long_dense_weight, long_query_words=0)

    def order(config: FusionConfig) -> list[str]:
        return [c.chunk_id for c in fuse(question, DENSE, LEXICAL, config, (), 100.0)]

    on, off = order(defaults), order(FusionConfig(long_query_words=0))

    assert on == ["both#1", "d#1", "l#1", "x#1"]
    assert on == order(long_weight)  # dense took its long-description weight
    assert off == ["both#1", "l#1", "x#1", "d#1"]
    assert off == [c.chunk_id for c in fuse("a short question", DENSE, LEXICAL, defaults)]


def test_a_clear_bm25_winner_leans_lexical() -> None:
    lexical: list[Hit] = [("l#1", "l", 30.0), ("x#1", "x", 10.0)]
    dense: list[Hit] = [("d#1", "d", 0.9), ("l#1", "l", 0.1)]

    leaning = fuse("q", dense, lexical, FusionConfig(dense_weight=1.0, lexical_margin=1.3))
    plain = fuse("q", dense, lexical, FusionConfig(dense_weight=1.0, lexical_margin=0.0))

    assert leaning[0].chunk_id == "l#1"
    assert leaning[1].score < plain[1].score


def test_reciprocal_rank_fusion_sums_each_rankings_weight_over_k_plus_rank() -> None:
    rankings = [(["a", "b", "c"], 1.0), (["c", "d"], 0.5)]

    fused = reciprocal_rank_fusion(rankings, k=10)

    assert fused == pytest.approx({"a": 1 / 11, "b": 1 / 12, "c": 1 / 13 + 0.5 / 11, "d": 0.5 / 12})
    assert list(fused) == ["a", "b", "c", "d"]


def test_reciprocal_rank_fusion_lets_two_agreeing_rankings_beat_one_first_place() -> None:
    rankings = [(["a", "b"], 1.0), (["c", "b"], 1.0)]

    fused = reciprocal_rank_fusion(rankings, k=10)

    assert max(fused, key=fused.__getitem__) == "b"


def test_a_smaller_rank_constant_rewards_the_top_of_a_ranking_more() -> None:
    rankings = [(["a", "b"], 1.0), (["b", "c"], 0.2)]

    sharp, flat = reciprocal_rank_fusion(rankings, k=0), reciprocal_rank_fusion(rankings, k=60)

    assert sharp["a"] > sharp["b"]
    assert flat["b"] > flat["a"]


def test_fusion_ranks_by_the_configured_rank_constant() -> None:
    dense: list[Hit] = [("a#1", "a", 0.5), ("b#1", "b", 0.5)]
    lexical: list[Hit] = [("b#1", "b", 1.0), ("c#1", "c", 1.0)]
    config = FusionConfig(rrf_k=0.0, score_weight=0.0, lexical_margin=0.0, dense_weight=1.0)

    fused = fuse("a question", dense, lexical, config)

    assert {c.chunk_id: c.score for c in fused} == pytest.approx(
        {"a#1": 1.0, "b#1": 1 / 2 + 1.0, "c#1": 1 / 2}
    )
