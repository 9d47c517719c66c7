"""Query expansion from the library's own vocabulary: names' long forms and co-occurring terms.

Two sources, each behind its own setting and off by default
(docs/adaptation.md has the measurements):

- names: the long forms of every name the question holds that a paper
  defines ("CBCT" -> "cone-beam computed tomography"), not only of the one
  it is about (`chat.rag.names`), are added to the BM25 query;
- co-occurrence: for each of the question's rarer terms, the terms that the
  passages holding it share far more often than the index does (term
  co-occurrence, read from BM25's own passages for that term alone):
  "cbct" brings "projection", "tomography", "reconstruction".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from chat.rag.bounds import check_bounds, described
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency

WeightedTerm = tuple[str, float]


@dataclass(frozen=True)
class ExpansionConfig:
    """Expansion of the BM25 query from the library's vocabulary
    (`PAPERCHAT_RETRIEVAL__EXPANSION__*`)."""

    all_names: bool = field(
        default=False,
        metadata=described(
            "add the long forms of every defined name in the question, not only of the one "
            "the question is about"
        ),
    )
    cooccurring: int = field(
        default=0,
        metadata=described(
            "terms added for each rarer question term, those its passages share most; 0 off",
            at_least=0,
        ),
    )
    passages: int = field(
        default=30,
        metadata=described("passages read for a term's co-occurring terms", at_least=1),
    )
    max_share: float = field(
        default=0.02,
        metadata=described(
            "a question term in more than this share of the chunks is too common to expand",
            at_least=0,
        ),
    )
    weight: float = field(
        default=0.3,
        metadata=described(
            "the weight of the best co-occurring term against a question term's 1", at_least=0
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)


def expandable(
    idf: Mapping[str, float], frequency: Mapping[str, int], documents: int, max_share: float
) -> list[str]:
    """The question's terms rare enough to expand: in 2 chunks or more, and in no more
    than `max_share` of them (a term of one chunk is a name or a typo)."""
    return [t for t in idf if 2 <= frequency.get(t, 0) <= max_share * documents and not t.isdigit()]


def cooccurring_terms(
    passages: Iterable[str],
    asked: Sequence[str],
    document_frequency: Callable[[Sequence[str]], Mapping[str, int]],
    documents: int,
    config: ExpansionConfig,
) -> list[WeightedTerm]:
    """The `config.cooccurring` terms the `passages` (those of one question term) hold most
    often against how often the index holds them: share of the passages holding the term
    times its inverse document frequency; weighted `config.weight` for the best, less for
    the rest. Terms of the question and terms of one chunk only are left out."""
    texts = list(passages)
    if not texts or not config.cooccurring:
        return []
    holding: Counter[str] = Counter()
    for text in texts:
        holding.update({t for t in terms(text) if len(t) >= 3 and not t.isdigit()})
    own = set(asked)
    candidates = [t for t, n in holding.items() if n >= 2 and t not in own]
    frequency = document_frequency(candidates)
    scored = {
        t: holding[t] / len(texts) * inverse_document_frequency(frequency.get(t, 0), documents)
        for t in candidates
        if frequency.get(t, 0) > 1
    }
    best = sorted(scored.items(), key=lambda pair: (-pair[1], pair[0]))[: config.cooccurring]
    if not best:
        return []
    top = best[0][1]
    return [(t, config.weight * score / top) for t, score in best]


def merged(*lists: Sequence[WeightedTerm]) -> list[WeightedTerm]:
    """One weight per term, the largest any list gives it, in the order first seen."""
    weights: dict[str, float] = {}
    for found in lists:
        for term, weight in found:
            weights[term] = max(weights.get(term, 0.0), weight)
    return list(weights.items())
