"""Question -> the passages an answer is grounded in.

Dense candidates (Chroma, cosine) and lexical ones (BM25 in the catalog) are
fused by weighted reciprocal rank fusion that also looks at the scores, and
the final list holds at most a few chunks of any one paper. Names in the
question (`chat/rag/names/recognition.py`) add their long forms to both searches and
raise the passages of the papers that define them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from chat.rag.names.matches import Recognised
from chat.rag.names.recognition import NameRecogniser, boost
from chat.rag.records.graph import graph_sources
from chat.rag.records.questions import GRAPH_FIELDS, paper_titled, read_question
from chat.rag.records.sources import record_sources
from chat.rag.rerank.reranker import Passage, Query, Reranker, RerankerUnavailable
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.coverage import CoverageReranker
from chat.rag.retrieval.expansion import cooccurring_terms, expandable, merged
from chat.rag.retrieval.feedback import expansion_terms, relevance_model
from chat.rag.retrieval.fusion import Candidate, Hit, fuse
from chat.rag.retrieval.leading import definition_first, summary_beside
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.style import query_style
from chat.rag.retrieval.vocabulary import (
    question_words,
    scholarly_terms,
)
from chat.rag.sources import Source
from ingest.index.filters import Filters
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency
from ingest.index.records import ARXIV_ID_RE, arxiv_url

if TYPE_CHECKING:
    # Only named in signatures: the settings import this module for its configuration,
    # and need not pay for Chroma and the embedders (about half a second).
    from ingest.embedders.base import Embedder
    from ingest.index.catalog import Catalog
    from ingest.index.lexical.bm25 import LexicalIndex
    from ingest.index.name_catalog import NameCatalog
    from ingest.index.vectors.store import ChunkStore

# A paper's first passages, where it says what its method is (`Retriever.opening`).
OPENING_PASSAGES = 12
_QUESTION_ID_RE = re.compile(
    rf"(?:arxiv\.org/(?:abs|pdf)/|arxiv:\s*|\b)(?P<full>{ARXIV_ID_RE.pattern})(?:\.pdf)?\b",
    re.IGNORECASE,
)


def ids_in_question(question: str) -> list[str]:
    """arXiv ids written in a question: `2203.12533`, `arXiv:2203.12533v2`, arxiv.org links."""
    found = []
    for match in _QUESTION_ID_RE.finditer(question):
        found.append(match["id"])
    return list(dict.fromkeys(found))


class Retriever:
    def __init__(
        self,
        catalog: Catalog,
        store: ChunkStore,
        lexical: LexicalIndex,
        embedder: Embedder,
        config: RetrievalConfig | None = None,
        rerankers: Sequence[Reranker] | None = None,
        names: NameCatalog | None = None,
    ) -> None:
        """`rerankers` reorder the fused candidates in turn; by default, the coverage
        second look with `config.coverage`. `names` is the catalog's names table; without
        it no names are recognised."""
        self.catalog = catalog
        self.store = store
        self.lexical = lexical
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self._given_rerankers = rerankers
        self.name_catalog = names
        self.names = (
            NameRecogniser(names, self.config.names, self.best_passages)
            if names is not None
            else None
        )
        self.rerankers: tuple[Reranker, ...] = (
            tuple(rerankers) if rerankers is not None else (CoverageReranker(self.config.coverage),)
        )

    def with_config(self, config: RetrievalConfig) -> Retriever:
        """The same indexes, embedder and rerankers (the default ones following `config`),
        other settings (e.g. one chunk per paper)."""
        return Retriever(
            self.catalog,
            self.store,
            self.lexical,
            self.embedder,
            config,
            self._given_rerankers,
            self.name_catalog,
        )

    def scope(self, question: str, filters: Filters) -> Filters:
        """An author becomes the ids of their papers (through the catalog's author index);
        otherwise papers named in the question, by id or by a title written as a title
        (`paper_titled`), narrow the search when the index has them."""
        if filters.author and filters.author_papers is None:
            person = self.catalog.person(filters.author)
            return filters.within(self.catalog.paper_ids_of(person) if person else [])
        if filters.searched_papers or filters.author:
            return filters
        named = [i for i in ids_in_question(question) if self.catalog.get_paper(i) is not None]
        titled = paper_titled(question, self.catalog) if not named else None
        if titled is not None:
            named = [titled]
        return filters.with_papers(named) if named else filters

    def retrieve(self, question: str, filters: Filters | None = None) -> Retrieved:
        started = time.perf_counter()
        filters = self.scope(question, filters or Filters())
        if filters.matches_nothing:
            # The author has no paper here (among those asked for): nothing to search.
            elapsed = (time.perf_counter() - started) * 1000
            return Retrieved((), (), (), {"retrieval_ms": elapsed})
        names = self.names.recognise(question) if self.names is not None else Recognised()
        idf, scholarly = self.question_statistics(question, names)
        # Only a name the question is about steers the search: one among several topics
        # ("India-focused VQA, OCR, translation eval") neither expands it nor boosts.
        steering = names.steering(
            idf, self.config.names.min_share, self.config.names.max_steering_definers
        )
        dense = self.dense(steering.expanded(question), filters)
        after_dense = time.perf_counter()
        expansion = merged(
            self.expansion(question, self.expanding(names, steering, idf)),
            self.cooccurrence(question, idf, filters),
        )
        lexical_hits = self.lexical_search(question, filters, expansion)
        if self.config.rm3.terms:
            lexical_hits = self.rm3(question, lexical_hits, filters, expansion)
        after_lexical = time.perf_counter()
        again = (
            self.feedback(question, dense, filters) if self.config.fusion.feedback_weight else []
        )
        style = query_style(question, idf, scholarly, self.lexical.count(), self.config.style)
        fusion = self.config.style.fusion_for(style, self.config.fusion)
        ranked = fuse(question, dense, lexical_hits, fusion, again, sum(idf.values()))
        degraded: list[str] = []
        ranked = self.rerank(
            question, ranked, idf, degraded, names.cased(), steering.long_forms_by_term()
        )
        ranked = self.boost_named(question, ranked, steering, filters, expansion, idf)
        ranked = definition_first(question, ranked, names, filters, self.opening)
        config = self.config
        chosen = config.choose(ranked, scoped=bool(filters.searched_papers))
        chosen = summary_beside(question, chosen, names, filters, self.opening)
        sources = self.with_records(
            question, names, self.sources_for(chosen), filters.searched_papers
        )
        done = time.perf_counter()
        timings = {
            "dense_ms": (after_dense - started) * 1000,
            "lexical_ms": (after_lexical - after_dense) * 1000,
            "fusion_ms": (done - after_lexical) * 1000,
            "retrieval_ms": (done - started) * 1000,
        }
        return Retrieved(
            tuple(sources),
            tuple(ranked),
            filters.searched_papers,
            timings,
            idf,
            names,
            scholarly,
            tuple(degraded),
        )

    def with_records(
        self,
        question: str,
        names: Recognised,
        sources: Sequence[Source],
        scope: Sequence[str] = (),
    ) -> list[Source]:
        """The record of the paper a record question asks about (its authors, date, venue,
        whom it cites or who cites it: `chat/rag/records`; the `scope`'s papers when it
        names none) first, the passages after it, numbered again."""
        asked = read_question(question, self.catalog, names, scope)
        records = []
        if asked is not None:
            by_field = graph_sources if asked.field in GRAPH_FIELDS else record_sources
            records = by_field(asked, self.catalog)
        rest = [s for s in sources if s.chunk_id not in {r.chunk_id for r in records}]
        return [replace(s, n=n) for n, s in enumerate([*records, *rest], start=1)]

    def question_idf(self, question: str) -> dict[str, float]:
        """Each distinct index term of the question with its inverse document frequency."""
        return self.question_statistics(question)[0]

    def question_statistics(
        self, question: str, names: Recognised | None = None
    ) -> tuple[dict[str, float], tuple[str, ...]]:
        """Each distinct index term of the question with its inverse document frequency,
        and those of its terms that are the papers' words rather than everyday English:
        the terms of a name some paper defines count among them ("MARE", "VITA")."""
        asked = list(dict.fromkeys(terms(question)))
        behind = question_words(question)
        frequency = self.lexical.document_frequencies(list(dict.fromkeys([*asked, *behind])))
        documents = self.lexical.count()
        idf = {t: inverse_document_frequency(frequency[t], documents) for t in asked}
        found = scholarly_terms(behind, frequency, documents, self.config.vocabulary)
        if names is not None:
            # A defined name marked as one ("ZeRO", "GPT"), or one that spells an English
            # word ("MARE") when it is nearly all the question; "NBA" in "Which NBA team
            # has the best record?" is judged on its words like the rest.
            plain = self.config.names.plain_share
            found += [
                t
                for m in names.matches
                if m.definers and (m.marked or names.share(m, idf) >= plain)
                for t in terms(m.asked)
            ]
        return idf, tuple(dict.fromkeys(t for t in found if t in idf))

    def expanding(
        self, names: Recognised, steering: Recognised, idf: Mapping[str, float]
    ) -> Recognised:
        """The names whose long forms expand the BM25 query: those steering the search, or
        with `expansion.all_names` every unambiguous one of few enough definers."""
        if not self.config.expansion.all_names:
            return steering
        return names.steering(idf, 0.0, self.config.names.max_steering_definers)

    def expansion(self, question: str, names: Recognised) -> list[tuple[str, float]]:
        """The index terms of the question's names' long forms that it lacks, weighted."""
        own = set(terms(question))
        weight = self.config.names.long_form_weight
        found = [t for form in names.search_forms() for t in terms(form) if t not in own]
        return [(t, weight) for t in dict.fromkeys(found)]

    def boost_named(
        self,
        question: str,
        ranked: Sequence[Candidate],
        names: Recognised,
        filters: Filters,
        expansion: Sequence[tuple[str, float]],
        idf: Mapping[str, float],
    ) -> list[Candidate]:
        """`chat.rag.names.recognition.boost` for the papers the question's names are about (within
        the caller's papers, if any), each by the boost times its name's share of the
        question's term weight, with their best BM25 passages for the question."""
        amounts: dict[str, float] = {}
        for match, papers in names.boosting:
            config = self.config.names
            scale = _scale(names.share(match, idf), config.min_share, config.about_share)
            for paper in papers:
                if not filters.paper_ids or paper in filters.paper_ids:
                    amount = config.boost * scale
                    amounts[paper] = max(amounts.get(paper, 0.0), amount)
        if not any(amount > 0 for amount in amounts.values()):
            return list(ranked)
        within = filters.with_papers(sorted(amounts))
        named = self.lexical_search(question, within, expansion)
        return boost(ranked, named, amounts)

    def rerank(
        self,
        question: str,
        ranked: Sequence[Candidate],
        idf: Mapping[str, float],
        degraded: list[str] | None = None,
        cased: Mapping[str, str] | None = None,
        long_forms: Mapping[str, tuple[str, ...]] | None = None,
    ) -> list[Candidate]:
        """`ranked` reordered by each of the rerankers in turn (`chat/rag/rerank/reranker.py`).
        One that cannot look leaves the order as it was, and its name joins `degraded`.
        `cased` are the question's names whose case carries meaning (`Query.cased`),
        `long_forms` the long forms of the names steering the search (`Query.long_forms`)."""
        query = Query(question, idf, dict(cased or {}), dict(long_forms or {}))
        reordered = list(ranked)
        for reranker in self.rerankers:
            try:
                reordered = reranker.rerank(query, reordered, self.passages)
            except RerankerUnavailable:
                if degraded is not None:
                    degraded.append(getattr(reranker, "name", type(reranker).__name__))
        return reordered

    def opening(self, paper_id: str) -> list[tuple[str, str]]:
        """(chunk id, text) of a paper's first passages: its abstract, then its body's
        first `OPENING_PASSAGES` (`chat.rag.retrieval.leading.Opening`)."""
        chunks = [
            *self.catalog.unit_chunks(paper_id, "abstract"),
            *(c for c in self.catalog.unit_chunks(paper_id, "fulltext") if c.kind == "fulltext"),
        ]
        return [(c.id, c.text) for c in chunks[:OPENING_PASSAGES]]

    def best_passages(self, query: str) -> list[tuple[str, str]]:
        """(paper id, text) of the passages BM25 finds best for `query`,
        `names.printing_sample` at most: what tells how the papers print a question's
        words (`chat.rag.names.printing.Passages`)."""
        limit = self.config.names.printing_sample
        hits = self.lexical.search(query, limit, fix_typos=False)
        rows = self.catalog.chunk_rows([chunk_id for chunk_id, _, _ in hits])
        return [(row.paper_id, row.text) for row in rows.values()]

    def passages(self, candidates: Sequence[Candidate]) -> dict[str, Passage]:
        """Each candidate's passage with its paper's title: what a reranker reads."""
        rows = self.catalog.chunk_rows([c.chunk_id for c in candidates])
        found = {}
        for candidate in candidates:
            row = rows.get(candidate.chunk_id)
            paper = self.catalog.get_paper(candidate.paper_id)
            title = paper.title if paper is not None else ""
            text = row.text if row is not None else ""
            found[candidate.chunk_id] = Passage(candidate.chunk_id, title, text)
        return found

    def lexical_search(
        self, question: str, filters: Filters, extra: Sequence[tuple[str, float]] = ()
    ) -> list[Hit]:
        return self.lexical.search(question, self.config.candidates, filters, extra=extra)

    def feedback(self, question: str, dense: Sequence[Hit], filters: Filters) -> list[Hit]:
        """BM25 hits for the question with the distinctive terms of the best dense passages
        (one per paper) added: pseudo-relevance feedback (`feedback.py`). The dense
        side reads plain-language questions better, so its passages lead."""
        config = self.config.feedback
        first: dict[str, str] = {}
        for chunk_id, paper_id, _ in dense:
            first.setdefault(paper_id, chunk_id)
            if len(first) == config.passages:
                break
        rows = self.catalog.chunk_rows(list(first.values()))
        passages = [row.text for row in rows.values()]
        found = expansion_terms(
            passages,
            terms(question),
            self.lexical.document_frequencies,
            self.lexical.count(),
            config,
        )
        if not found:
            return []
        return self.lexical_search(question, filters, [(t, config.boost * w) for t, w in found])

    def rm3(
        self,
        question: str,
        first: Sequence[Hit],
        filters: Filters,
        expansion: Sequence[tuple[str, float]],
    ) -> list[Hit]:
        """BM25 hits for the question with RM3's terms (`feedback.relevance_model`) of
        BM25's own best passages (one per paper) added to `expansion`; `first` when the
        passages give none."""
        config = self.config.rm3
        best: dict[str, tuple[str, float]] = {}
        for chunk_id, paper_id, score in first:
            best.setdefault(paper_id, (chunk_id, score))
            if len(best) == config.passages:
                break
        rows = self.catalog.chunk_rows([chunk_id for chunk_id, _ in best.values()])
        passages = [(rows[c].text, score) for c, score in best.values() if c in rows]
        found = relevance_model(
            passages, terms(question), self.lexical.document_frequencies, config
        )
        if not found:
            return list(first)
        return self.lexical_search(question, filters, merged(expansion, found))

    def cooccurrence(
        self, question: str, idf: Mapping[str, float], filters: Filters
    ) -> list[tuple[str, float]]:
        """For each of the question's rarer terms, the terms its passages share
        (`expansion.cooccurring_terms`); none when this expansion is off."""
        config = self.config.expansion
        if not config.cooccurring:
            return []
        documents = self.lexical.count()
        frequency = self.lexical.document_frequencies(list(idf))
        found: list[list[tuple[str, float]]] = []
        for term in expandable(idf, frequency, documents, config.max_share):
            hits = self.lexical.search(term, config.passages, filters, fix_typos=False)
            rows = self.catalog.chunk_rows([chunk_id for chunk_id, _, _ in hits])
            texts = [row.text for row in rows.values()]
            found.append(
                cooccurring_terms(
                    texts, list(idf), self.lexical.document_frequencies, documents, config
                )
            )
        return merged(*found)

    def dense(self, question: str, filters: Filters) -> list[Hit]:
        """(chunk id, paper id, cosine similarity), best first.

        Each chunk's paper comes from the catalog: asking Chroma for the chunks'
        metadata cost ~10 ms a query, ten times the search itself. Chunks the
        catalog does not hold are left out.
        """
        vector = self.embedder.embed([question])[0]
        nearest = self.store.search(vector, self.config.candidates, filters)
        rows = self.catalog.chunk_rows([chunk_id for chunk_id, _ in nearest])
        hits = [
            (chunk_id, rows[chunk_id].paper_id, similarity)
            for chunk_id, similarity in nearest
            if chunk_id in rows
        ]
        if filters.categories:
            allowed = self._in_categories({p for _, p, _ in hits}, filters.categories)
            hits = [h for h in hits if h[1] in allowed]
        return hits

    def _in_categories(self, paper_ids: set[str], categories: Sequence[str]) -> set[str]:
        wanted = set(categories)
        keep = set()
        for paper_id in paper_ids:
            paper = self.catalog.get_paper(paper_id)
            if paper is not None and wanted & set(paper.categories):
                keep.add(paper_id)
        return keep

    def sources_for(self, chosen: Sequence[Candidate]) -> list[Source]:
        rows = self.catalog.chunk_rows([c.chunk_id for c in chosen])
        sources = []
        for n, candidate in enumerate(chosen, start=1):
            row = rows[candidate.chunk_id]
            paper = self.catalog.get_paper(candidate.paper_id)
            is_arxiv = paper.is_arxiv if paper is not None else True
            sources.append(
                Source(
                    n=n,
                    id=candidate.paper_id,
                    is_arxiv=is_arxiv,
                    title=paper.title if paper is not None else "",
                    chunk_id=candidate.chunk_id,
                    kind=row.kind,
                    section=row.section,
                    page=row.page_start or None,
                    text=row.text,
                    score=candidate.score,
                    url=arxiv_url(candidate.paper_id) if is_arxiv else "",
                )
            )
        return sources


def _scale(share: float, low: float, high: float) -> float:
    """0 up to `low`, rising to 1 at `high` and beyond."""
    if share >= high:
        return 1.0
    return max(0.0, (share - low) / (high - low)) if high > low else 0.0
