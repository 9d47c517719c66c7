"""What the extractive answer tests share: a source with a rank, an id and a text."""

from __future__ import annotations

from chat.rag.sources import Source
from tests.support.worlds.sources import make_source


def source(n: int, paper_id: str, text: str, *, kind: str = "fulltext") -> Source:
    """Source `n` of paper `paper_id` holding `text`: a results section on page 3, or an
    abstract; its score falls with its rank."""
    abstract = kind == "abstract"
    return make_source(
        n,
        paper_id,
        text,
        is_arxiv=not paper_id.startswith("doc"),
        kind=kind,
        section="Abstract" if abstract else "Results",
        page=None if abstract else 3,
        title=f"Paper {paper_id}",
        score=1.0 / n,
    )
