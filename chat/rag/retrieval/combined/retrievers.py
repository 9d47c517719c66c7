"""A retriever over several retrievers: the library's and an upload's each, or several
uploads', searched one after the other and their passages merged into one ranking.

Each part searches its own index as it would alone (its fusion, second looks, caps
and records); what a part holds decides the filters it gets (`Part.filters`). The
parts' rankings are merged by reciprocal rank, each candidate's own score scaled by
its part's best adding a little, so that the best passage of every part stands near
the top whatever the scale of its index's scores. Relevance is judged on the merged
candidates with the first part's reading of the question (its terms' weights, its
names): list the library first when it is one of the parts.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.retriever import Retriever
from chat.rag.sources import Source
from ingest.index.filters import Filters

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog
    from ingest.index.names.citations import StoredReference
    from ingest.index.records import Paper

# Weight of a candidate's score, scaled by its part's best, beside its reciprocal rank.
SCORE_WEIGHT = 0.1


class Ranked(Protocol):
    @property
    def score(self) -> float: ...


T = TypeVar("T", bound=Ranked)


@dataclass(frozen=True)
class Part:
    """One index searched: `holds` the ids of the papers it holds (an upload's document),
    or None for the library, which holds every paper no other part does."""

    retriever: Retriever
    holds: tuple[str, ...] | None = None

    def filters(self, asked: Filters, elsewhere: set[str]) -> Filters | None:
        """What this part searches with when `asked` is the question's scope and
        `elsewhere` the papers other parts hold; None when the scope leaves it nothing.

        A scope naming papers names every part's: an upload is searched when it names
        its document, the library with the rest of them (when there is a rest). The
        library's other restrictions (an author, categories, dates) are its alone."""
        if self.holds is None:
            if not asked.paper_ids:
                return asked
            rest = [p for p in asked.paper_ids if p not in elsewhere]
            return asked.with_papers(rest) if rest else None
        if asked.paper_ids and not set(self.holds) & set(asked.paper_ids):
            return None
        return Filters(paper_ids=self.holds)


def merged_order(lists: Sequence[Sequence[T]], rrf_k: float) -> list[tuple[float, T]]:
    """Every item of every list with its merged score, best first: `1 / (rrf_k + rank)` in
    its own list plus `SCORE_WEIGHT` times its score over its list's best."""
    scored: list[tuple[float, T]] = []
    for items in lists:
        best = max((item.score for item in items), default=0.0)
        for rank, item in enumerate(items, start=1):
            scaled = item.score / best if best > 0 else 0.0
            scored.append((1.0 / (rrf_k + rank) + SCORE_WEIGHT * scaled, item))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return scored


class CombinedCatalog:
    """The parts' catalogs read as one where an answer looks a paper up by its id (its
    title, for a follow-up's scope and a namesake's line; its references, for what a
    citation quotes): each id from the catalog that holds it. Anything else is the first
    catalog's."""

    def __init__(self, catalogs: Sequence[Catalog]) -> None:
        self._catalogs = tuple(catalogs)

    def _holding(self, paper_id: str) -> Catalog:
        for catalog in self._catalogs:
            if catalog.get_paper(paper_id) is not None:
                return catalog
        return self._catalogs[0]

    def get_paper(self, paper_id: str) -> Paper | None:
        return self._holding(paper_id).get_paper(paper_id)

    def references_of(self, paper_id: str) -> list[StoredReference]:
        return self._holding(paper_id).references_of(paper_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._catalogs[0], name)


class CombinedRetriever(Retriever):
    """The parts searched in turn and merged; its names and config are the first part's, so
    that an answerer reads the question as that part would, and its catalog finds a paper
    in whichever part holds it (`CombinedCatalog`)."""

    def __init__(self, parts: Sequence[Part], config: RetrievalConfig | None = None) -> None:
        if not parts:
            raise ValueError("a combined retriever needs at least one part")
        first = parts[0].retriever
        config = config or first.config
        super().__init__(
            first.catalog, first.store, first.lexical, first.embedder, config, first.rerankers
        )
        self.name_catalog, self.names = first.name_catalog, first.names
        self.parts = tuple(parts)
        # Read by the answerer alone: every search goes through a part's own catalog.
        self.catalog = cast("Catalog", CombinedCatalog([p.retriever.catalog for p in parts]))

    def with_config(self, config: RetrievalConfig) -> CombinedRetriever:
        parts = [replace(p, retriever=p.retriever.with_config(config)) for p in self.parts]
        return CombinedRetriever(parts, config)

    def _searched(self, filters: Filters) -> list[tuple[Part, Filters]]:
        searched = []
        for part in self.parts:
            elsewhere = {p for other in self.parts if other is not part for p in other.holds or ()}
            scope = part.filters(filters, elsewhere)
            if scope is not None:
                searched.append((part, scope))
        return searched

    def retrieve(self, question: str, filters: Filters | None = None) -> Retrieved:
        started = time.perf_counter()
        found = [
            part.retriever.retrieve(question, scope)
            for part, scope in self._searched(filters or Filters())
        ]
        if not found:
            return Retrieved((), (), (), {"retrieval_ms": 0.0})
        rrf_k = self.config.fusion.rrf_k
        ranked = [
            replace(c, score=score) for score, c in merged_order([r.ranked for r in found], rrf_k)
        ]
        sources = [s for _, s in merged_order([r.sources for r in found], rrf_k)]
        sources = [replace(s, n=n) for n, s in enumerate(sources[: self.config.k], start=1)]
        first = found[0]
        timings = dict(first.timings)
        timings["retrieval_ms"] = (time.perf_counter() - started) * 1000
        scoped = tuple(dict.fromkeys(p for r in found for p in r.scoped_to))
        return Retrieved(
            tuple(sources),
            tuple(ranked),
            scoped,
            timings,
            first.question_idf,
            first.names,
            first.scholarly,
            tuple(dict.fromkeys(d for r in found for d in r.degraded)),
        )

    def sources_for(self, chosen: Sequence[Candidate]) -> list[Source]:
        """The candidates' sources, each read from the part whose catalog holds it."""
        by_chunk: dict[str, Source] = {}
        left = list(chosen)
        for part in self.parts:
            held = part.retriever.catalog.chunk_rows([c.chunk_id for c in left])
            mine = [c for c in left if c.chunk_id in held]
            for source in part.retriever.sources_for(mine):
                by_chunk[source.chunk_id] = source
            left = [c for c in left if c.chunk_id not in held]
        kept = [by_chunk[c.chunk_id] for c in chosen if c.chunk_id in by_chunk]
        return [replace(s, n=n) for n, s in enumerate(kept, start=1)]
