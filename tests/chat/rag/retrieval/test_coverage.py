"""The second look at the best candidates: passages holding more of the question rise."""

from __future__ import annotations

from collections.abc import Sequence

from chat.rag.rerank.reranker import Passage, Query
from chat.rag.retrieval.coverage import CoverageConfig, CoverageReranker, coverage, rerank
from chat.rag.retrieval.fusion import Candidate

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


def _passages(candidates: Sequence[Candidate]) -> dict[str, Passage]:
    return {c.chunk_id: Passage(c.chunk_id, "", TEXTS[c.chunk_id]) for c in candidates}


def test_the_coverage_reranker_reads_the_passages_within_its_depth() -> None:
    asked: list[list[str]] = []

    def passages(candidates: Sequence[Candidate]) -> dict[str, Passage]:
        asked.append([c.chunk_id for c in candidates])
        return _passages(candidates)

    reranker = CoverageReranker(CoverageConfig(depth=3, weight=1.0))
    reordered = reranker.rerank(Query("q", IDF), RANKED, passages)

    assert [c.chunk_id for c in reordered] == ["b#0", "a#0", "c#0", "d#0"]
    assert asked == [["a#0", "b#0", "c#0"]]


def test_the_coverage_reranker_counts_the_papers_title() -> None:
    titled = {"c#0": Passage("c#0", "JPEG steganalysis networks", "Nothing in common.")}

    def passages(candidates: Sequence[Candidate]) -> dict[str, Passage]:
        return {**_passages(candidates), **titled}

    reordered = CoverageReranker(CoverageConfig(depth=3)).rerank(Query("q", IDF), RANKED, passages)

    assert [c.chunk_id for c in reordered] == ["b#0", "c#0", "a#0", "d#0"]


def test_the_coverage_reranker_turned_off_reads_nothing() -> None:
    def passages(candidates: Sequence[Candidate]) -> dict[str, Passage]:
        raise AssertionError("read passages while turned off")

    kept = CoverageReranker(CoverageConfig(depth=0)).rerank(Query("q", IDF), RANKED, passages)

    assert kept == RANKED


def test_a_name_whose_case_carries_meaning_counts_only_where_printed_so() -> None:
    """ "FiD" and "FID" are one index term; a passage holds FiD only where it prints it."""
    idf = {"fid": 6.0, "stand": 2.0}
    cased = {"fid": "FiD"}

    assert coverage(idf, "Reconstruction FID predicts generation FID", cased) == 0.0
    assert coverage(idf, "FiD-Light stands out", cased) == 1.0
    assert coverage(idf, "FiD stands for Fusion-in-Decoder", cased) == 1.0
    assert coverage(idf, "Reconstruction FID predicts generation FID") == 0.75


def test_the_reranker_lifts_the_passage_printing_the_name_in_its_case() -> None:
    ranked = [Candidate("metric#0", "metric", 0.6), Candidate("fid#0", "fid", 0.5)]
    texts = {"metric#0": "FID of diffusion models.", "fid#0": "FiD reads many passages."}
    idf = {"fid": 6.0}

    def passages(candidates: Sequence[Candidate]) -> dict[str, Passage]:
        return {c.chunk_id: Passage(c.chunk_id, "", texts[c.chunk_id]) for c in candidates}

    reranker = CoverageReranker(CoverageConfig(depth=2, weight=1.0))
    plain = reranker.rerank(Query("FiD", idf), ranked, passages)
    cased = reranker.rerank(Query("FiD", idf, {"fid": "FiD"}), ranked, passages)

    assert [c.chunk_id for c in plain] == ["metric#0", "fid#0"]
    assert [c.chunk_id for c in cased] == ["fid#0", "metric#0"]


def test_a_passage_writing_the_long_form_holds_the_name_it_never_prints() -> None:
    """FiD's paper defines it as "Fusion-in-Decoder" and rarely prints "FiD"; the long
    form counts for the name, in a row, and not where the metric FID is meant."""
    idf = {"fid": 6.0, "stand": 2.0}
    cased = {"fid": "FiD"}
    forms = {"fid": ("Fusion-in-Decoder",)}
    defining = "The model performs evidence fusion in the decoder only: Fusion-in-Decoder."

    assert coverage(idf, defining, cased) == 0.0
    assert coverage(idf, defining, cased, forms) == 0.75
    assert coverage(idf, "Fusion of features; the decoder stands alone", cased, forms) == 0.25
    assert coverage(idf, "Reconstruction FID predicts generation FID", cased, forms) == 0.0


def test_the_reranker_lifts_the_passage_writing_a_steering_names_long_form() -> None:
    # Without the long form the passage holding "stand" only stays above it.
    ranked = [Candidate("user#0", "user", 0.9), Candidate("fid#0", "fid", 0.6)]
    texts = {
        "user#0": "What the readers stand for, in plain words.",
        "fid#0": "We refer to it as Fusion-in-Decoder.",
    }
    idf = {"fid": 6.0, "stand": 2.0}

    def passages(candidates: Sequence[Candidate]) -> dict[str, Passage]:
        return {c.chunk_id: Passage(c.chunk_id, "", texts[c.chunk_id]) for c in candidates}

    reranker = CoverageReranker(CoverageConfig(depth=2, weight=1.0))
    without = reranker.rerank(Query("FiD", idf, {"fid": "FiD"}), ranked, passages)
    query = Query("FiD", idf, {"fid": "FiD"}, {"fid": ("Fusion-in-Decoder",)})
    with_forms = reranker.rerank(query, ranked, passages)

    assert [c.chunk_id for c in without] == ["user#0", "fid#0"]
    assert [c.chunk_id for c in with_forms] == ["fid#0", "user#0"]
