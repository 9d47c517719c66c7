"""Pseudo-relevance feedback: which terms of the first pass's passages are searched again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chat.rag.retrieval.feedback import FeedbackConfig, expansion_terms
from chat.rag.retrieval.fusion import FusionConfig, Hit, fuse

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
