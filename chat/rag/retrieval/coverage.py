"""A second look at the best fused candidates: how much of the question each one holds.

BM25 rewards a passage for repeating one of the question's words; someone who
types a handful of specific words wants the passage that holds most of them.
The best `depth` fused candidates are scored again: their fused score (scaled
by the best one's) plus `weight` times the share of the question's rare-word
weight (summed inverse document frequencies) found in the passage or its
paper's title. A term of a name whose case carries meaning counts only where the
passage prints the name in that case: "FiD" asked, a passage about FID (the image
metric, which the index stems alike) does not hold it. `CoverageReranker` is this
second look as a retriever's `Reranker`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from chat.rag.bounds import check_bounds, described
from chat.rag.names.definitions import find_name
from chat.rag.rerank.reranker import Passages, Query
from chat.rag.retrieval.fusion import Candidate
from ingest.index.lexical.analysis import terms


@dataclass(frozen=True)
class CoverageConfig:
    """The second look at the best fused candidates (`PAPERCHAT_RETRIEVAL__COVERAGE__*`).

    Measured with the development questions over the full index (docs/benchmarks.md): R@1 of
    keyword questions 0.97 -> 1.00, paraphrases 0.91 -> 0.93, short ones 0.28 -> 0.36.
    """

    depth: int = field(
        default=40,
        metadata=described(
            "fused candidates scored again by how much of the question's term weight they "
            "hold; 0 turns this off",
            at_least=0,
        ),
    )
    weight: float = field(default=1.0, metadata=described("weight of that coverage", at_least=0))

    def __post_init__(self) -> None:
        check_bounds(self)


def coverage(
    idf: Mapping[str, float],
    text: str,
    cased: Mapping[str, str] | None = None,
    long_forms: Mapping[str, tuple[str, ...]] | None = None,
) -> float:
    """The share of the question's term weight (`idf` per question term) found in `text`;
    a term of `cased` (index term -> name as printed) only where `text` prints the name,
    and a term of `long_forms` (index term -> long forms) also where `text` writes one of
    its long forms (its terms in a row)."""
    total = sum(idf.values())
    if total <= 0:
        return 0.0
    written = terms(text)
    found = set(written)
    for term, name in (cased or {}).items():
        if term in found and find_name(text, name) is None:
            found.discard(term)
    for term, forms in (long_forms or {}).items():
        if term not in found and any(_in_a_row(terms(form), written) for form in forms):
            found.add(term)
    return sum(weight for term, weight in idf.items() if term in found) / total


def _in_a_row(part: Sequence[str], whole: Sequence[str]) -> bool:
    """Whether `part` (not empty) occurs in `whole` as consecutive items."""
    size = len(part)
    if not size:
        return False
    first = part[0]
    return any(whole[i : i + size] == list(part) for i, t in enumerate(whole) if t == first)


def rerank(
    ranked: Sequence[Candidate],
    idf: Mapping[str, float],
    texts: Mapping[str, str],
    config: CoverageConfig,
    cased: Mapping[str, str] | None = None,
    long_forms: Mapping[str, tuple[str, ...]] | None = None,
) -> list[Candidate]:
    """`ranked` with its first `config.depth` candidates reordered by fused score plus
    coverage; `texts` holds each of those candidates' text (with its paper's title)."""
    head, tail = ranked[: config.depth], ranked[config.depth :]
    if not head or not idf or head[0].score <= 0:
        return list(ranked)
    best = head[0].score
    rescored = [
        replace(
            c,
            score=c.score / best
            + config.weight * coverage(idf, texts.get(c.chunk_id, ""), cased, long_forms),
        )
        for c in head
    ]
    rescored.sort(key=lambda c: c.score, reverse=True)
    # On the same scale, without coverage, the tail stays below the head.
    return rescored + [replace(c, score=c.score / best) for c in tail]


@dataclass(frozen=True)
class CoverageReranker:
    """`rerank` with `config`, reading the best candidates' passages and titles."""

    config: CoverageConfig = field(default_factory=CoverageConfig)

    def rerank(
        self, query: Query, ranked: Sequence[Candidate], passages: Passages
    ) -> list[Candidate]:
        config = self.config
        if config.depth <= 0 or config.weight <= 0:
            return list(ranked)
        found = passages(ranked[: config.depth])
        texts = {chunk: f"{p.title}\n{p.text}" for chunk, p in found.items()}
        return rerank(ranked, query.idf, texts, config, query.cased, query.long_forms)
