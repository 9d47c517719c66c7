"""Pseudo-relevance feedback: which terms of the first pass's passages are searched again,
and the question's vector moved toward its best passages' on the dense side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.feedback import (
    DenseFeedbackConfig,
    FeedbackConfig,
    expansion_terms,
    moved_vector,
)
from chat.rag.retrieval.fusion import FusionConfig, Hit, fuse
from chat.wiring import Wiring
from ingest.index.filters import Filters

PASSAGES = (
    "Steganalysis detects hidden messages in JPEG images with a residual network.",
    "A lightweight steganalysis network for JPEG images cuts FLOPs by 97 percent.",
    "Image classification with residual networks.",
)
# Chunks holding each stem in an index of 10,000: "network" is common, "steganalysi" rare.
FREQUENCY = {"steganalysi": 40, "jpeg": 300, "imag": 4000, "network": 6000, "residu": 900}


def _frequency(stems: Sequence[str]) -> Mapping[str, int]:
    return {stem: FREQUENCY.get(stem, 1) for stem in stems}


def test_terms_the_passages_share_and_the_index_rarely_holds_come_first() -> None:
    found = expansion_terms(PASSAGES, ["hidden"], _frequency, 10_000, FeedbackConfig(terms=3))

    assert [term for term, _ in found] == ["steganalysi", "residu", "jpeg"]
    assert found[0][1] == 1.0
    assert 0 < found[2][1] < found[1][1] < 1.0


def test_question_terms_numbers_short_stems_and_one_off_words_are_left_out() -> None:
    found = dict(expansion_terms(PASSAGES, ["jpeg"], _frequency, 10_000, FeedbackConfig()))

    assert "jpeg" not in found  # the question's own
    assert "97" not in found
    assert "cut" not in found  # in one chunk of the index only: a name or a typo
    assert set(found) == {"steganalysi", "imag", "network", "residu"}


def test_no_passages_no_terms() -> None:
    assert expansion_terms([], ["anything"], _frequency, 10_000, FeedbackConfig()) == []


def test_the_feedback_list_lifts_what_it_finds_by_its_weight() -> None:
    dense: list[Hit] = [("d#1", "d", 0.6)]
    lexical: list[Hit] = [("l#1", "l", 12.0), ("f#1", "f", 6.0)]
    feedback: list[Hit] = [("f#1", "f", 20.0), ("l#1", "l", 10.0)]

    without = fuse("q", dense, lexical, FusionConfig(feedback_weight=1.0))
    weighed = fuse("q", dense, lexical, FusionConfig(feedback_weight=2.0), feedback)
    ignored = fuse("q", dense, lexical, FusionConfig(feedback_weight=0.0), feedback)

    assert [c.chunk_id for c in without][:2] == ["l#1", "f#1"]
    assert [c.chunk_id for c in weighed][:2] == ["f#1", "l#1"]
    assert weighed[0].feedback_rank == 1
    assert [c.score for c in ignored] == [c.score for c in without]


def test_dense_feedback_moves_the_question_toward_its_passages() -> None:
    question = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    passages = [np.array([0.0, 2.0, 0.0]), np.array([0.0, 1.0, 1.0])]

    moved = moved_vector(question, passages, 0.5)

    centre = np.array([0.0, 1 + 1 / np.sqrt(2), 1 / np.sqrt(2)]) / 2
    expected = np.array([1.0, 0.0, 0.0]) + 0.5 * centre
    assert np.allclose(moved, expected / np.linalg.norm(expected), atol=1e-6)
    assert float(np.linalg.norm(moved)) == pytest.approx(1.0)
    assert float(moved @ passages[0]) > float(question @ passages[0])


def test_a_heavier_weight_moves_the_question_further() -> None:
    question = np.array([1.0, 0.0], dtype=np.float32)
    passage = [np.array([0.0, 1.0], dtype=np.float32)]

    light = moved_vector(question, passage, 0.2)
    heavy = moved_vector(question, passage, 1.0)

    assert 0 < light[1] < heavy[1]


def test_without_passages_or_weight_the_question_stays() -> None:
    question = np.array([3.0, 4.0], dtype=np.float32)

    assert np.allclose(moved_vector(question, [], 0.5), [0.6, 0.8])
    assert np.allclose(moved_vector(question, [np.array([1.0, 0.0])], 0.0), [0.6, 0.8])


def test_dense_feedback_searches_again_from_the_moved_vector(small_index: Wiring) -> None:
    question = "How do you make a neural net forget less when learning new things?"
    base = small_index.retriever.with_config(
        RetrievalConfig(dense_feedback=DenseFeedbackConfig(passages=0))
    )
    moved = small_index.retriever.with_config(
        RetrievalConfig(dense_feedback=DenseFeedbackConfig(passages=3, weight=1.0))
    )

    first = base.dense(question, Filters())
    again = moved.dense(question, Filters())

    assert [hit[0] for hit in again] != [hit[0] for hit in first]
    assert {hit[1] for hit in first[:3]} <= {hit[1] for hit in again[:10]}


# A question of `questions-hard.jsonl`'s layman style, and one of the papers' own words.
LAYMAN = "How do you make a neural net forget less when learning new things?"
KEYWORD = (
    "How does NEX rank chain-of-thought samples without labels using exploration and "
    "exploitation phases of MLP neurons?"
)


def test_feedback_for_everyday_words_moves_a_layman_question_and_not_a_keyword_one(
    small_index: Wiring,
) -> None:
    off = small_index.retriever.with_config(
        RetrievalConfig(dense_feedback=DenseFeedbackConfig(passages=0))
    )
    gate = DenseFeedbackConfig(passages=3, weight=1.0, layman_share=0.8)
    gated = small_index.retriever.with_config(RetrievalConfig(dense_feedback=gate))

    moved = gated.dense(LAYMAN, Filters())
    kept = gated.dense(KEYWORD, Filters())

    assert [hit[0] for hit in moved] != [hit[0] for hit in off.dense(LAYMAN, Filters())]
    assert kept == off.dense(KEYWORD, Filters())


def test_feedback_for_everyday_words_reads_the_style_from_the_index(small_index: Wiring) -> None:
    lexical = small_index.retriever.lexical
    config = RetrievalConfig()
    gate = DenseFeedbackConfig(passages=3, layman_share=0.8)
    expected = {
        LAYMAN: True,
        KEYWORD: False,
        "sparse view CBCT recon w dual transfomer": False,  # short
        "How does sparse-view CBCT recon w/ a dual-domain transfomer work?": False,  # messy
    }

    applied = {q: gate.applies(q, lexical, config.vocabulary, config.style) for q in expected}
    ungated = DenseFeedbackConfig(passages=3).applies(
        KEYWORD, lexical, config.vocabulary, config.style
    )

    assert applied == expected
    assert ungated
