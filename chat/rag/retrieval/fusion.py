"""Fusing dense and lexical candidates: weighted reciprocal ranks plus normalised scores.

On this corpus BM25 is much stronger than the small dense model, so equal
weights lose to BM25 alone on keyword questions; the weights and the score
term are what lets fusion beat both retrievers (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from chat.rag.bounds import check_bounds, described


@dataclass(frozen=True)
class FusionConfig:
    """How the dense and lexical rankings are fused (`PAPERCHAT_RETRIEVAL__FUSION__*`).

    The defaults were chosen with `python -m bench.quality.fusion` on the development
    questions (docs/benchmarks.md): they beat BM25 alone and dense alone on every kind but one.
    """

    rrf_k: float = field(
        default=10.0, metadata=described("the reciprocal-rank constant", at_least=0)
    )
    dense_weight: float = field(
        default=0.5, metadata=described("weight of the dense ranking in the fusion", at_least=0)
    )
    lexical_weight: float = field(
        default=1.0, metadata=described("weight of the BM25 ranking", at_least=0)
    )
    score_weight: float = field(
        default=0.1,
        metadata=described(
            "weight of each retriever's score, scaled to [0, 1] by its best candidate",
            at_least=0,
        ),
    )
    lexical_margin: float = field(
        default=1.3,
        metadata=described(
            "when BM25's best paper outscores its second by this ratio, the question named "
            "something specific (a method, a dataset) and the fusion leans lexical; 0 turns "
            "this off",
            at_least=0,
        ),
    )
    confident_dense_factor: float = field(
        default=0.3,
        metadata=described(
            "what the dense weight is multiplied by when the fusion leans lexical", at_least=0
        ),
    )
    long_query_words: int = field(
        default=20,
        metadata=described(
            "a question of at least this many words whose rare words no passage holds "
            "describes an idea in its own words rather than the papers': dense, which reads "
            "such descriptions better, gets `long_dense_weight` there (long paraphrases of a "
            "paper keep its rare words); 0 turns this off",
            at_least=0,
        ),
    )
    long_dense_weight: float = field(
        default=1.5,
        metadata=described("the dense weight for such a long description", at_least=0),
    )
    long_query_max_share: float = field(
        default=0.5,
        metadata=described(
            "a long question counts as a description while BM25's best score stays under "
            "this share of its summed inverse document frequencies; 0 drops this condition",
            at_least=0,
        ),
    )
    feedback_weight: float = field(
        default=0.0,
        metadata=described(
            "weight of the pseudo-relevance feedback ranking (`PAPERCHAT_RETRIEVAL__FEEDBACK__*`);"
            " 0 turns feedback off",
            at_least=0,
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)


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
