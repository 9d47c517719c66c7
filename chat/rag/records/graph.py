"""Questions about the citation graph, answered from the catalog: the library's papers a
paper cites ("What does RETRO build on?") or that cite it ("Who cites DPR?"). The paper's
source states the list; each listed paper's record is a source too, so every paper the
answer cites passes the citation guard."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from chat.rag.records.questions import CITES, RecordQuestion
from chat.rag.records.sources import listed_text, paper_source
from chat.rag.sources import Source

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog
    from ingest.index.records import Paper

MAX_LISTED: Final = 20  # the papers a graph answer lists at most; the rest are counted
_LABEL: Final = re.compile(r"\((?P<label>(?:arXiv|doc):[^()\s]+)\)")


def graph_sources(asked: RecordQuestion, catalog: Catalog) -> list[Source]:
    """The asked paper's source stating whom it cites (or who cites it), then the record of
    each listed paper, numbered from 1; [] when the library lacks the paper."""
    paper = catalog.get_paper(asked.paper_ids[0]) if asked.paper_ids else None
    if paper is None:
        return []
    if asked.field == CITES:
        references = catalog.references_of(paper.id)
        resolved = list(dict.fromkeys(r.resolved_id for r in references if r.resolved_id))
        listed = _papers(catalog, resolved)
        text = _cites_text(paper, listed, len(references), len(resolved))
    else:
        citing = catalog.citing_papers(paper.id)
        listed = citing[:MAX_LISTED]
        text = _cited_by_text(paper, listed, len(citing))
    listed_sources = [paper_source(n, p, listed_text(p)) for n, p in enumerate(listed, 2)]
    return [paper_source(1, paper, text), *listed_sources]


def graph_answer(sources: Sequence[Source]) -> list[str]:
    """The extractive answer: the asked paper's statement, each paper cited as the answer's
    citations are written ("[arXiv:2004.04906]")."""
    if not sources:
        return []
    return [_LABEL.sub(r"[\g<label>]", sources[0].text) + "\n"]


def _papers(catalog: Catalog, ids: Sequence[str]) -> list[Paper]:
    found = (catalog.get_paper(i) for i in ids[:MAX_LISTED])
    return [paper for paper in found if paper is not None]


def _cites_text(paper: Paper, listed: Sequence[Paper], references: int, resolved: int) -> str:
    if not references:
        return f"The library holds no reference list for {_named(paper)}."
    if not listed:
        return (
            f"{_named(paper)} cites no paper of the library: its {references} references "
            "are to works the library does not hold."
        )
    others = references - resolved
    more = resolved - len(listed)
    tail = (
        f" Its other {others} references are to works the library does not hold." if others else ""
    )
    return f"{_named(paper)} cites {_count(resolved)} of the library: {_list(listed, more)}.{tail}"


def _cited_by_text(paper: Paper, listed: Sequence[Paper], citing: int) -> str:
    if not citing:
        return f"No paper of the library cites {_named(paper)}."
    verb = "cites" if citing == 1 else "cite"
    more = citing - len(listed)
    return f"{_count(citing)} of the library {verb} {_named(paper)}: {_list(listed, more)}."


def _named(paper: Paper) -> str:
    label = "arXiv" if paper.is_arxiv else "doc"
    return f"{' '.join(paper.title.split())} ({label}:{paper.id})"


def _list(papers: Sequence[Paper], more: int) -> str:
    named = "; ".join(_named(p) for p in papers)
    return f"{named}; and {more} more" if more > 0 else named


def _count(papers: int) -> str:
    return "1 paper" if papers == 1 else f"{papers} papers"
