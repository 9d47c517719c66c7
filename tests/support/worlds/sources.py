"""Sources as retrieval hands them to answering, for tests that need a few by hand."""

from __future__ import annotations

from collections.abc import Sequence

from chat.rag.citations.guard import CitationGuard
from chat.rag.sources import Source


def make_source(
    n: int,
    paper_id: str = "2203.12533",
    text: str = "Some passage.",
    *,
    is_arxiv: bool = True,
    kind: str = "fulltext",
    section: str = "Results",
    page: int | None = 3,
    title: str | None = None,
    score: float = 0.5,
) -> Source:
    return Source(
        n=n,
        id=paper_id,
        is_arxiv=is_arxiv,
        title=title if title is not None else f"Paper {n}",
        chunk_id=f"{paper_id}#{kind}-{n}",
        kind=kind,
        section=section,
        page=page,
        text=text,
        score=score,
        url=f"https://arxiv.org/abs/{paper_id}",
    )


def guarded(pieces: Sequence[str], sources: Sequence[Source]) -> tuple[str, list[str], list[str]]:
    """The citation guard's output for text fed in `pieces`, its citations and dropped names."""
    guard = CitationGuard(sources)
    out = "".join(guard.feed(piece) for piece in pieces) + guard.flush()
    return out, guard.citations, guard.dropped
