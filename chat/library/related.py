"""A paper's related papers in the library, each with why: the papers it cites or that cite
it, the papers cited together with it (co-citation), those that share its references
(bibliographic coupling) and those whose abstract reads like its own (the chunk store's
nearest vectors). Every part is an indexed lookup from the paper; none reads all papers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from chat.library.citations import known_paper_id
from ingest.index.filters import Filters
from ingest.index.names.citations import citing_ids, references_of, shared_reference_counts
from ingest.index.records import chunk_place

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog
    from ingest.index.vectors.store import ChunkStore

MAX_RELATED: Final = 10
# Citing papers whose reference lists are read for co-citation, at most.
MAX_CITING_READ: Final = 50
# Nearest chunks asked of the store for the abstract's neighbours.
NEAREST_CHUNKS: Final = 60
# The nearest papers that count as "similar abstract", at most, and the cosine similarity
# they need at least (all-MiniLM-L6-v2 puts papers of unrelated fields below it).
MAX_SIMILAR: Final = 5
MIN_SIMILARITY: Final = 0.3
# What each kind of link weighs in the order of the list.
_DIRECT: Final = 3.0
_CO_CITED: Final = 1.5
_SHARED: Final = 1.0
_SIMILAR: Final = 4.0


@dataclass
class _Link:
    score: float = 0.0
    reasons: list[str] = field(default_factory=list)

    def add(self, score: float, reason: str) -> None:
        self.score += score
        self.reasons.append(reason)


def related_papers(catalog: Catalog, store: ChunkStore, value: str) -> list[dict[str, Any]]:
    """At most `MAX_RELATED` of the library's papers related to this one, the most related
    first, each with its reasons ("cites 4 of the same papers"); PaperNotFound if unknown."""
    paper_id = known_paper_id(catalog, value)
    links: dict[str, _Link] = {}

    def link(other: str, score: float, reason: str) -> None:
        if other != paper_id:
            links.setdefault(other, _Link()).add(score, reason)

    cited = {r.resolved_id for r in references_of(catalog.db, paper_id) if r.resolved_id}
    citing = citing_ids(catalog.db, paper_id)
    for other in sorted(cited):
        link(other, _DIRECT, "cited by it")
    for other in citing:
        link(other, _DIRECT, "cites it")
    for other, count in _co_cited(catalog, paper_id, citing).most_common():
        link(other, _CO_CITED * count, f"cited together with it by {_papers(count)}")
    for other, count in sorted(shared_reference_counts(catalog.db, paper_id).items()):
        link(other, _SHARED * count, f"cites {count} of the same papers")
    for other, similarity in _similar(catalog, store, paper_id).items():
        link(other, _SIMILAR * similarity, "similar abstract")
    ranked = sorted(links.items(), key=lambda item: (-item[1].score, item[0]))
    related = []
    for other, found in ranked[:MAX_RELATED]:
        paper = catalog.get_paper(other)
        if paper is not None:
            related.append({"id": paper.id, "title": paper.title, "reasons": found.reasons})
    return related


def _co_cited(catalog: Catalog, paper_id: str, citing: list[str]) -> Counter[str]:
    """The library's papers that the papers citing this one cite too, with how many do."""
    together: Counter[str] = Counter()
    for other in citing[:MAX_CITING_READ]:
        named = {r.resolved_id for r in references_of(catalog.db, other) if r.resolved_id}
        together.update(named - {paper_id})
    return together


def _similar(catalog: Catalog, store: ChunkStore, paper_id: str) -> dict[str, float]:
    """The `MAX_SIMILAR` papers whose chunks lie nearest the paper's abstract chunk (its
    first chunk when it has none), each with its best cosine similarity, at least
    `MIN_SIMILARITY`."""
    own = catalog.chunk_ids(paper_id, "abstract") or sorted(
        catalog.chunk_ids(paper_id), key=lambda i: (chunk_place(i) or ("", 0))[1]
    )
    vectors = store.vectors(own[:1])
    if not vectors:
        return {}
    nearest = store.search(next(iter(vectors.values())), NEAREST_CHUNKS, Filters())
    rows = catalog.chunk_rows([chunk_id for chunk_id, _ in nearest])
    best: dict[str, float] = {}
    for chunk_id, similarity in nearest:
        row = rows.get(chunk_id)
        if row is None or row.paper_id == paper_id or similarity < MIN_SIMILARITY:
            continue
        best[row.paper_id] = max(best.get(row.paper_id, 0.0), similarity)
    nearest_papers = sorted(best.items(), key=lambda item: -item[1])[:MAX_SIMILAR]
    return dict(nearest_papers)


def _papers(count: int) -> str:
    return "1 paper" if count == 1 else f"{count} papers"
