"""The second look at the best candidates: passages holding more of the question rise."""

from __future__ import annotations

from chat.rag.coverage import CoverageConfig, coverage, rerank
from chat.rag.fusion import Candidate

IDF = {"steganalysi": 8.0, "jpeg": 6.0, "network": 1.0}
RANKED = [
    Candidate("a#0", "a", 0.50),  # repeats one rare word
    Candidate("b#0", "b", 0.45),  # holds all three
    Candidate("c#0", "c", 0.40),
    Candidate("d#0", "d", 0.10),
]
TEXTS = {
    "a#0": "Steganalysis, steganalysis and more steganalysis.",
    "b#0": "A lightweight steganalysis network for JPEG images.",
    "c#0": "Nothing in common.",
    "d#0": "JPEG steganalysis networks.",
}


def test_coverage_is_the_share_of_the_question_weight_a_text_holds() -> None:
    assert coverage(IDF, "JPEG networks") == 7.0 / 15.0
    assert coverage(IDF, "nothing at all") == 0.0
    assert coverage({}, "JPEG") == 0.0


def test_the_passage_holding_most_of_the_question_rises_within_the_depth() -> None:
    reordered = rerank(RANKED, IDF, TEXTS, CoverageConfig(depth=3, weight=1.0))

    assert [c.chunk_id for c in reordered] == ["b#0", "a#0", "c#0", "d#0"]
    assert reordered[-1].score < min(c.score for c in reordered[:3])


def test_weight_zero_keeps_the_fused_order() -> None:
    kept = rerank(RANKED, IDF, TEXTS, CoverageConfig(depth=3, weight=0.0))

    assert [c.chunk_id for c in kept] == ["a#0", "b#0", "c#0", "d#0"]
