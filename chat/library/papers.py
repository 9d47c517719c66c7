"""Papers as the dock and the API show them: one paper's record, and search by paper."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chat.rag.extractive.sentences import split_sentences
from chat.rag.names.definitions import find_name
from chat.rag.names.matches import Recognised
from chat.rag.retrieval.coverage import coverage
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from chat.rag.sources import Source
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.records import Paper, arxiv_pdf_url, arxiv_url, normalise_paper_id

MAX_SEARCH_RESULTS = 50


class PaperNotFound(PaperchatError, LookupError):
    """No paper with that id in the index."""


def paper_details(catalog: Catalog, value: str) -> dict[str, Any]:
    paper_id = normalise_paper_id(value)
    row = catalog.paper_row(paper_id)
    if row is None:
        raise PaperNotFound(f"no paper {value!r} in the index")
    return {
        **paper_record(row.paper),
        "has_fulltext": row.has_fulltext,
        "field_sources": row.field_sources,
    }


def paper_record(paper: Paper) -> dict[str, Any]:
    """A paper's record as the API, the pages and BibTeX read it."""
    return {
        "id": paper.id,
        "title": paper.title,
        "authors": paper.authors,
        "abstract": paper.abstract,
        "categories": list(paper.categories),
        "published": paper.published or None,
        "updated": paper.updated or None,
        "comments": paper.comments or None,
        "journal_ref": paper.journal_ref or None,
        "doi": paper.doi or None,
        "url": arxiv_url(paper.id) if paper.is_arxiv else None,
        "pdf_url": arxiv_pdf_url(paper.id) if paper.is_arxiv else None,
    }


@dataclass(frozen=True)
class SearchResult:
    id: str
    title: str
    authors: str
    snippet: str
    score: float


@dataclass(frozen=True)
class PaperSearch:
    results: list[SearchResult]
    # Why nothing is listed when the query passes no relevance bar ("No papers match").
    no_match_reason: str | None = None


def search_papers(
    retriever: Retriever,
    query: str,
    limit: int = 10,
    filters: Filters | None = None,
    policy: RelevancePolicy | None = None,
) -> list[SearchResult]:
    """Hybrid search with one result per paper, best first; none when the query passes
    the relevance bar of the answers (`policy`) with no paper."""
    return find_papers(retriever, query, limit, filters, policy).results


def find_papers(
    retriever: Retriever,
    query: str,
    limit: int = 10,
    filters: Filters | None = None,
    policy: RelevancePolicy | None = None,
) -> PaperSearch:
    """`search_papers`, with the reason when nothing matches."""
    limit = max(1, min(limit, MAX_SEARCH_RESULTS))
    # One result per paper: no paper fills another's place.
    config = dataclasses.replace(
        retriever.config, k=limit, per_paper=1, leader_per_paper=1, cap_floor=0.0
    )
    retrieved = retriever.with_config(config).retrieve(query, filters or Filters())
    policy = policy or RelevancePolicy()
    judgement = policy.judge(retrieved)
    sources = retrieved.sources
    if not judgement.relevant:
        # A search box finds papers by their words: one whose passage (with its title)
        # holds most of the query's term weight matches, even where an answer would be
        # declined ("escaping untrusted metadata"); only such papers are listed, not the
        # nearest others. Gibberish holds nothing, and a real word beside gibberish
        # ("asdfgh qwerty") not enough: nothing matches.
        if retrieved.lexical_share < policy.lexical_share:
            return PaperSearch([], judgement.reason)
        idf, cased = retrieved.question_idf, retrieved.names.cased()
        sources = tuple(
            source
            for source in sources
            if coverage(idf, f"{source.title}\n{source.text}", cased) >= policy.lexical_share
        )
        if not sources:
            return PaperSearch([], judgement.reason)
    results = []
    matched = Matched(retrieved.question_idf, retrieved.names)
    for source in sources:
        paper = retriever.catalog.get_paper(source.id)
        authors = paper.authors if paper is not None else ""
        snippet = result_snippet(source, paper, matched=matched)
        results.append(SearchResult(source.id, source.title, authors, snippet, source.score))
    return PaperSearch(results)


@dataclass(frozen=True)
class Matched:
    """What a search asked for, to find the sentence of a passage that matches it best: its
    terms with their weights, and the names recognised in it."""

    idf: Mapping[str, float] = field(default_factory=dict)
    names: Recognised = field(default_factory=Recognised)

    def weight(self, sentence: str) -> float:
        """The share of the search's term weight `sentence` holds; a name typed apart
        ("flash attention") is held where the sentence prints it (FlashAttention)."""
        printed = [m.asked for m in self.names.matches if find_name(sentence, m.name)]
        return coverage(self.idf, " ".join([sentence, *printed]), self.names.cased())


def result_snippet(
    source: Source, paper: Paper | None, length: int = 240, matched: Matched | None = None
) -> str:
    """The sentence of the matched passage that holds most of the search's terms (the one
    after it too, when they fit in `length`), never the title the passage may open with.
    For a hit on a footnote, a caption, a table or a PDF's first page (title, authors,
    marks and all), the paper's abstract is read instead, when it has one."""
    text = source.text
    furniture = source.kind in ("footnote", "caption", "table")
    if (furniture or (source.kind == "fulltext" and source.page == 1)) and paper and paper.abstract:
        text = paper.abstract
    title = source.title.strip()
    if title and text.startswith(title):
        text = text[len(title) :].lstrip()
    sentences = split_sentences(text) or [text]
    if matched is None or not matched.idf:
        return dataclasses.replace(source, text=text).snippet(length)
    best = max(range(len(sentences)), key=lambda i: (matched.weight(sentences[i]), -i))
    shown = sentences[best]
    following = sentences[best + 1] if best + 1 < len(sentences) else ""
    if following and len(shown) + 1 + len(following) <= length:
        shown = f"{shown} {following}"
    return dataclasses.replace(source, text=shown).snippet(length)
