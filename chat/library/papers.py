"""Papers as the dock and the API show them: one paper's record, and search by paper."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from chat.rag.extractive.sentences import split_sentences
from chat.rag.names.definitions import find_name
from chat.rag.names.matches import Recognised
from chat.rag.retrieval.coverage import coverage
from chat.rag.retrieval.relevance import NOT_CLOSE, RelevancePolicy
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.retriever import Retriever
from chat.rag.sources import Source
from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.paths import paper_path
from ingest.index.records import (
    ARXIV_ID_RE,
    Paper,
    arxiv_pdf_url,
    arxiv_url,
    normalise_paper_id,
)

MAX_SEARCH_RESULTS = 50
# The most papers one search ranks and counts, over all its pages.
MAX_SEARCH_MATCHES = 200
# How a search's papers are ordered: best match first, or latest first submission first.
SearchSort = Literal["relevance", "newest"]


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


def page_path(paper: Paper) -> str:
    """`paper`'s canonical page path (`paper_path`), as a link's href: escaped."""
    return quote(paper_path(paper.id, paper.title, paper.is_arxiv))


def page_paths(catalog: Catalog, paper_ids: Iterable[str]) -> dict[str, str]:
    """Each id's canonical page path as a link's href, so that a link to a paper costs no
    redirect; an id the catalog lacks keeps its bare `/papers/<id>`."""
    paths = {}
    for paper_id in dict.fromkeys(paper_ids):
        paper = catalog.get_paper(paper_id)
        paths[paper_id] = page_path(paper) if paper else quote(f"/papers/{paper_id}")
    return paths


# A paper page's path after `/papers/` as people write it: an arXiv id, maybe with `arXiv:`
# and a version, maybe followed by `-` and a title slug (any, right or not).
_PAGE_PATH = re.compile(rf"^(?:arxiv:)?{ARXIV_ID_RE.pattern}(?:-[A-Za-z0-9-]*)?$", re.I)


def page_paper_id(path: str) -> str:
    """The id of the paper a page path names (`2203.12533v2`, `arXiv:hep-th/9901001`,
    `2203.12533-any-slug`); anything else as `normalise_paper_id` reads it."""
    match = _PAGE_PATH.match(path.strip())
    return match["id"] if match else normalise_paper_id(path)


@dataclass(frozen=True)
class Listed:
    """A paper as a list of every page reads it: its id, title and last change."""

    id: str
    title: str
    is_arxiv: bool
    updated: str  # the last version, or the record's last change; "" when unknown


def every_paper(catalog: Catalog) -> Iterator[Listed]:
    """Every paper in the catalog, by id."""
    rows = catalog.db.execute(
        "SELECT id, title, is_arxiv, published, updated FROM papers ORDER BY id"
    ).fetchall()
    for row in rows:
        yield Listed(
            row["id"], row["title"], bool(row["is_arxiv"]), row["updated"] or row["published"]
        )


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
    return _ranked(retriever, query, max(1, min(limit, MAX_SEARCH_RESULTS)), filters, policy)


@dataclass(frozen=True)
class SearchPage:
    """One page of a search's papers, and how many there are on all its pages."""

    results: list[SearchResult]
    total: int
    no_match_reason: str | None = None


def paged_search(
    retriever: Retriever,
    query: str,
    filters: Filters | None = None,
    sort: SearchSort = "relevance",
    page: int = 1,
    limit: int = 10,
    policy: RelevancePolicy | None = None,
) -> SearchPage:
    """Page `page` (from 1) of `limit` papers of a search within `filters`, best match first
    or (`sort="newest"`) latest first submission first; `total` counts the papers of every
    page, at most `MAX_SEARCH_MATCHES`."""
    found = _ranked(retriever, query, MAX_SEARCH_MATCHES, filters, policy)
    results = found.results
    if sort == "newest":
        results = sorted(
            results, key=lambda hit: _first_day(retriever.catalog, hit.id), reverse=True
        )
    start = (max(1, page) - 1) * limit
    return SearchPage(results[start : start + limit], len(results), found.no_match_reason)


def _first_day(catalog: Catalog, paper_id: str) -> str:
    paper = catalog.get_paper(paper_id)
    return (paper.published or paper.updated) if paper else ""


def _ranked(
    retriever: Retriever,
    query: str,
    limit: int,
    filters: Filters | None,
    policy: RelevancePolicy | None,
) -> PaperSearch:
    """At most `limit` papers for `query`, one result each, best first."""
    # One result per paper: no paper fills another's place.
    config = dataclasses.replace(
        retriever.config, k=limit, per_paper=1, leader_per_paper=1, cap_floor=0.0
    )
    ranking = retriever.with_config(config)
    policy = policy or RelevancePolicy()
    whole = ranking.retrieve(query, Filters())
    if filters is None or filters == Filters():
        return _listed(retriever, whole, _matching(whole, policy))
    # Filters narrow what the whole library's search lists; they do not change whether the
    # query matches. Judged within a category alone, "retrieval" lost its closest passages
    # (in other categories) and listed only the papers holding the word; a date range
    # listed weaker matches than the whole library's search admits.
    listed = {source.id for source in _matching(whole, policy).sources}
    retrieved = ranking.retrieve(query, filters)
    words = _matching(retrieved, policy, by_words_only=True)
    kept = {source.id for source in words.sources} | listed
    sources = tuple(source for source in retrieved.sources if source.id in kept)
    return _listed(retriever, retrieved, _Matching(sources, words.reason))


@dataclass(frozen=True)
class _Matching:
    sources: tuple[Source, ...]
    reason: str  # why nothing matches, when nothing does


def _matching(
    retrieved: Retrieved, policy: RelevancePolicy, *, by_words_only: bool = False
) -> _Matching:
    """The sources a search lists: all of them when the query is one the answers would take
    up (unless `by_words_only`); otherwise those holding the query's words."""
    judgement = policy.judge(retrieved)
    if judgement.relevant and not by_words_only:
        return _Matching(tuple(retrieved.sources), "")
    # A search box finds papers by their words: one whose passage (with its title) holds
    # most of the query's term weight matches, even where an answer would be declined
    # ("escaping untrusted metadata"); only such papers are listed, not the nearest
    # others. Gibberish holds nothing, and a real word beside gibberish ("asdfgh qwerty")
    # not enough: nothing matches.
    reason = judgement.reason or NOT_CLOSE
    if retrieved.lexical_share < policy.lexical_share:
        return _Matching((), reason)
    idf, cased = retrieved.question_idf, retrieved.names.cased()
    sources = tuple(
        source
        for source in retrieved.sources
        if coverage(idf, f"{source.title}\n{source.text}", cased) >= policy.lexical_share
    )
    return _Matching(sources, "" if sources else reason)


def _listed(retriever: Retriever, retrieved: Retrieved, matching: _Matching) -> PaperSearch:
    """The results for `matching`'s sources, each with its snippet."""
    if not matching.sources:
        return PaperSearch([], matching.reason or None)
    sources = matching.sources
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
