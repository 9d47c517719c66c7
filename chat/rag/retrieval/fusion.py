"""Fusing dense and lexical candidates: weighted reciprocal ranks plus normalised scores.

On this corpus BM25 is much stronger than the small dense model, so equal
weights lose to BM25 alone on keyword questions; the weights and the score
term are what lets fusion beat both retrievers (see the README's tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chat.rag.bounds import at_least


@dataclass(frozen=True)
class FusionConfig:
    # Defaults chosen with `python -m bench.fusion` on the development questions
    # (see the README): they beat BM25 alone and dense alone on every kind but one.
    rrf_k: float = 10.0
    dense_weight: float = 0.5
    lexical_weight: float = 1.0
    # Weight of each retriever's score, scaled to [0, 1] by its best candidate.
    score_weight: float = 0.1
    # When BM25's best paper outscores its second by this ratio, the query named
    # something specific (a method, a dataset): lean lexical by this factor.
    lexical_margin: float = 1.3  # 0 turns the adaptation off
    confident_dense_factor: float = 0.3
    # A question of at least this many words whose rare words no passage holds (BM25's
    # best score under `long_query_max_share` of the question's summed inverse document
    # frequencies) describes an idea in its own words rather than the papers': dense, which
    # reads such descriptions better, gets `long_dense_weight` there. Long paraphrases of
    # a paper keep its rare words, so BM25's best reaches the share. 0 words turns this
    # off, a share of 0 drops the condition on it.
    long_query_words: int = 20
    long_dense_weight: float = 1.5
    long_query_max_share: float = 0.5
    # Weight of the pseudo-relevance feedback list (`feedback.py` beside this), if any.
    feedback_weight: float = 0.0

    def __post_init__(self) -> None:
        at_least(self, 0, "dense_weight", "lexical_weight", "score_weight", "lexical_margin")
        at_least(self, 0, "confident_dense_factor", "long_query_words", "long_dense_weight")
        at_least(self, 0, "long_query_max_share", "feedback_weight", "rrf_k")


@dataclass(frozen=True)
class Candidate:
    chunk_id: str
    paper_id: str
    score: float  # fused, higher is better
    dense: float = 0.0  # cosine similarity, 0 when only lexical found it
    lexical: float = 0.0  # BM25, 0 when only dense found it
    dense_rank: int | None = None  # 1-based
    lexical_rank: int | None = None
    feedback_rank: int | None = None
    rerank: float | None = None  # a reranking model's score, when one looked


Hit = tuple[str, str, float]  # (chunk id, paper id, score)
Ranking = tuple[Sequence[str], float]  # (ids best first, the ranking's weight)


def _scaled(hits: Sequence[Hit]) -> dict[str, float]:
    if not hits:
        return {}
    best = max(score for _, _, score in hits)
    return {chunk: (score / best if best > 0 else 0.0) for chunk, _, score in hits}


def lexical_margin(lexical: Sequence[Hit]) -> float:
    """How far BM25's best paper stands above the next paper: best score over runner-up's."""
    best: dict[str, float] = {}
    for _, paper, score in lexical:
        best.setdefault(paper, score)
    scores = sorted(best.values(), reverse=True)
    if len(scores) < 2 or scores[1] <= 0:
        return float("inf") if scores else 0.0
    return scores[0] / scores[1]


def lexical_share(best_lexical: float, term_weight: float) -> float:
    """BM25's best score over the question's summed inverse document frequencies: near or
    above 1 when one passage holds most of the question's rare words; 0 when unknown."""
    return best_lexical / term_weight if term_weight > 0 else 0.0


def _dense_weight(
    query: str, lexical: Sequence[Hit], config: FusionConfig, term_weight: float
) -> float:
    """The dense list's weight before leaning lexical: its own for a long description."""
    if not config.long_query_words or len(query.split()) < config.long_query_words:
        return config.dense_weight
    best = max((score for _, _, score in lexical), default=0.0)
    share = lexical_share(best, term_weight)
    if config.long_query_max_share and share >= config.long_query_max_share:
        return config.dense_weight
    return config.long_dense_weight


def reciprocal_rank_fusion(rankings: Iterable[Ranking], k: float) -> dict[str, float]:
    """Weighted reciprocal rank fusion: each id's `weight / (k + rank)` (rank 1-based)
    summed over the rankings it is in, ids in the order first seen. An id appears at
    most once in one ranking."""
    fused: dict[str, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused


def _ids(hits: Sequence[Hit]) -> list[str]:
    return [chunk for chunk, _, _ in hits]


def _ranks(hits: Sequence[Hit]) -> dict[str, int]:
    return {chunk: rank for rank, (chunk, _, _) in enumerate(hits, start=1)}


def fuse(
    query: str,
    dense: Sequence[Hit],
    lexical: Sequence[Hit],
    config: FusionConfig,
    feedback: Sequence[Hit] = (),
    term_weight: float = 0.0,
) -> list[Candidate]:
    """Every candidate of any list, best first. `term_weight` is the question's summed
    inverse document frequencies (0 when unknown: the long-question rule then applies
    on length alone)."""
    papers = {chunk: paper for chunk, paper, _ in (*dense, *lexical, *feedback)}
    dense_rank, lexical_rank, feedback_rank = _ranks(dense), _ranks(lexical), _ranks(feedback)
    dense_score = {chunk: score for chunk, _, score in dense}
    lexical_score = {chunk: score for chunk, _, score in lexical}
    dense_weight = _dense_weight(query, lexical, config, term_weight)
    if config.lexical_margin and lexical_margin(lexical) >= config.lexical_margin:
        dense_weight *= config.confident_dense_factor
    weighted = (
        (dense, dense_weight),
        (lexical, config.lexical_weight),
        (feedback, config.feedback_weight),
    )
    by_rank = reciprocal_rank_fusion([(_ids(hits), w) for hits, w in weighted], config.rrf_k)
    scaled = [(_scaled(hits), config.score_weight * w) for hits, w in weighted]
    fused = []
    for chunk, paper in papers.items():
        score = by_rank[chunk]
        score += sum(weight * scores[chunk] for scores, weight in scaled if chunk in scores)
        fused.append(
            Candidate(
                chunk,
                paper,
                score,
                dense_score.get(chunk, 0.0),
                lexical_score.get(chunk, 0.0),
                dense_rank.get(chunk),
                lexical_rank.get(chunk),
                feedback_rank.get(chunk),
            )
        )
    fused.sort(key=lambda c: c.score, reverse=True)
    return fused
