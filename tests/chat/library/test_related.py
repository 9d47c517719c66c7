"""Related papers over FiD, DPR and RAG read from their real PDFs and a few real abstracts:
citations either way, shared references and similar abstracts, each with its reason."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
import pytest

from chat.library.papers import PaperNotFound
from chat.library.related import MAX_SIMILAR, MIN_SIMILARITY, related_papers
from ingest.index.names.citations import title_key
from tests.support.worlds.citations import DPR, FID, RAG, cited_index_fixture  # noqa: F401 - fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring
    from ingest.index.records import Reference

pytestmark = pytest.mark.timeout(300)

SHARED = re.compile(r"^cites (\d+) of the same papers$")


def _keys(reference: Reference) -> set[str]:
    keys = {f"arxiv:{reference.arxiv_id}", f"doi:{reference.doi}"}
    keys = {k for k in keys if not k.endswith(":")}
    key = title_key(reference.title)
    return keys | {f"title:{key}"} if key else keys


def _shared_count(index: Wiring, paper: str, other: str) -> int:
    """How many of `paper`'s references `other` cites too, from the two reference lists."""
    theirs = set().union(*(_keys(s.reference) for s in index.catalog.references_of(other)))
    return sum(bool(_keys(s.reference) & theirs) for s in index.catalog.references_of(paper))


def test_fid_is_related_to_dpr_and_rag_by_its_citations_and_shared_references(
    cited_index: Wiring,
) -> None:
    related = related_papers(cited_index.catalog, cited_index.store, f"arXiv:{FID}v2")

    by_id = {paper["id"]: paper for paper in related}
    assert {DPR, RAG} <= set(by_id)
    for other in (DPR, RAG):
        reasons = by_id[other]["reasons"]
        assert "cited by it" in reasons
        shared = [int(m[1]) for r in reasons if (m := SHARED.match(r))]
        assert shared == [_shared_count(cited_index, FID, other)]
        assert shared[0] > 0


def test_rag_is_cited_together_with_dpr_by_the_papers_citing_both(cited_index: Wiring) -> None:
    catalog = cited_index.catalog
    both = [
        citing.id
        for citing in catalog.citing_papers(DPR)
        if RAG in {s.resolved_id for s in catalog.references_of(citing.id)}
    ]

    related = related_papers(catalog, cited_index.store, DPR)

    reasons = {paper["id"]: paper["reasons"] for paper in related}[RAG]
    assert both
    expected = "1 paper" if len(both) == 1 else f"{len(both)} papers"
    assert f"cited together with it by {expected}" in reasons


def test_an_abstract_only_paper_is_related_by_its_abstract_alone(cited_index: Wiring) -> None:
    catalog = cited_index.catalog
    abstract_only = [
        row[0] for row in catalog.db.execute("SELECT id FROM papers WHERE fulltext_hash IS NULL")
    ]
    listed = {p: related_papers(catalog, cited_index.store, p) for p in abstract_only}
    paper, related = max(listed.items(), key=lambda item: len(item[1]))
    abstract = catalog.get_paper(paper)
    assert abstract is not None

    asked = cited_index.embedder.embed([abstract.abstract])[0]

    assert 0 < len(related) <= MAX_SIMILAR
    assert all(r["reasons"] == ["similar abstract"] for r in related)
    nearest = [_nearest_chunk(cited_index, asked, r["id"]) for r in related]
    assert all(similarity >= MIN_SIMILARITY - 0.01 for similarity in nearest)
    # Most similar first (the stored abstract chunk holds the title too: a little slack).
    assert all(a >= b - 0.01 for a, b in pairwise(nearest))


def _nearest_chunk(index: Wiring, vector: np.ndarray, paper: str) -> float:
    ids = index.catalog.chunk_ids(paper)
    stored = np.stack(list(index.store.vectors(ids).values()))
    norms = np.linalg.norm(stored, axis=1) * np.linalg.norm(vector)
    return float(np.max(stored @ vector / norms))


def test_a_paper_unlike_the_others_has_no_related_papers(cited_index: Wiring) -> None:
    catalog = cited_index.catalog
    ids = [row[0] for row in catalog.db.execute("SELECT id FROM papers")]
    vectors = {
        p: cited_index.embedder.embed([paper.abstract or paper.title])[0]
        for p in ids
        if (paper := catalog.get_paper(p)) is not None
    }
    loneliest = min(
        vectors,
        key=lambda p: max(_nearest_chunk(cited_index, vectors[p], o) for o in ids if o != p),
    )
    loneliest_best = max(
        _nearest_chunk(cited_index, vectors[loneliest], o) for o in ids if o != loneliest
    )

    related = related_papers(catalog, cited_index.store, loneliest)

    assert loneliest_best < MIN_SIMILARITY
    assert related == []


def test_an_unknown_paper_is_not_found(cited_index: Wiring) -> None:
    with pytest.raises(PaperNotFound, match=r"9999\.99999"):
        related_papers(cited_index.catalog, cited_index.store, "9999.99999")
