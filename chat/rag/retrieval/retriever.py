"""Question -> the passages an answer is grounded in.

Dense candidates (Chroma, cosine) and lexical ones (BM25 in the catalog) are
fused by weighted reciprocal rank fusion that also looks at the scores, and
the final list holds at most a few chunks of any one paper. Names in the
question (`chat/rag/names/recognition.py`) add their long forms to both searches and
raise the passages of the papers that define them. The searches themselves, and
what is read back of their candidates, are `chat.rag.retrieval.searches`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from chat.rag.names.matches import Recognised
from chat.rag.names.recognition import NameRecogniser, boost
from chat.rag.records.authored import authored_paper
from chat.rag.records.graph import graph_sources
from chat.rag.records.questions import GRAPH_FIELDS, paper_titled, read_question, where_paper
from chat.rag.records.sources import record_sources
from chat.rag.rerank.reranker import Query, Reranker, RerankerUnavailable
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.coverage import CoverageReranker
from chat.rag.retrieval.expansion import merged
from chat.rag.retrieval.fusion import Candidate, fuse
from chat.rag.retrieval.leading import (
    count_beside,
    definition_first,
    definition_in_scope,
    summary_beside,
    table_asked,
    tables_beside_captions,
    values_beside_notation,
)
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.retrieval.searches import OPENING_PASSAGES, Searches, values_stated
from chat.rag.retrieval.style import query_style
from chat.rag.retrieval.vocabulary import (
    asked_names,
    question_words,
    scholarly_terms,
)
from chat.rag.sources import Source
from ingest.index.filters import Filters
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency
from ingest.index.records import ARXIV_ID_RE

if TYPE_CHECKING:
    # Only named in signatures: the settings import this module for its configuration,
    # and need not pay for Chroma and the embedders (about half a second).
    from ingest.embedders.base import Embedder
    from ingest.index.catalog import Catalog
    from ingest.index.lexical.bm25 import LexicalIndex
    from ingest.index.name_catalog import NameCatalog
    from ingest.index.vectors.store import ChunkStore

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


class Retriever(Searches):
    """The searches (`Searches`) in the order one retrieval takes them, and the second
    looks at what they found."""

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
        super().__init__(catalog, store, lexical, embedder, config)
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
        otherwise papers named in the question, by id, by a leading clause ("In the RETRO
        paper, ...": `where_paper`), by its authors and words of its title ("Rahman et
        al.'s zero-shot object detection paper": `authored_paper`) or by a title written as
        a title (`paper_titled`), narrow the search when the index has them."""
        if filters.author and filters.author_papers is None:
            person = self.catalog.person(filters.author)
            return filters.within(self.catalog.paper_ids_of(person) if person else [])
        if filters.searched_papers or filters.author:
            return filters
        named = [i for i in ids_in_question(question) if self.catalog.get_paper(i) is not None]
        if not named and self.names is not None:
            named = [p for p in [where_paper(question, self.catalog, self.names.recognise)] if p]
        if not named and (authored := self._authored(question)) is not None:
            named = [authored]  # "Rahman et al.'s zero-shot object detection paper"
        titled = paper_titled(question, self.catalog) if not named else None
        if titled is not None:
            named = [titled]
        return filters.with_papers(named) if named else filters

    def _authored(self, question: str) -> str | None:
        """`authored_paper`, the names of a description read with the recogniser."""
        recognise = self.names.recognise if self.names is not None else None

        def named_papers(words: str) -> set[str]:
            found = recognise(words).matches if recognise is not None else ()
            return {p for match in found for p in match.own_papers}

        return authored_paper(question, self.catalog, named_papers)

    def retrieve(self, question: str, filters: Filters | None = None) -> Retrieved:
        started = time.perf_counter()
        # Papers or an author the caller chose, rather than papers the question names.
        chosen_scope = filters is not None and bool(filters.paper_ids or filters.author)
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
            self.synonyms(question, scholarly, dense),
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
        # The steps below read papers' passages from the catalog, often the same paper's.
        passages = PassagesRead(self.paper_passages)
        ranked = definition_first(question, ranked, names, filters, passages.opening)
        ranked = definition_in_scope(question, ranked, filters, passages)
        config = self.config
        chosen = config.choose(ranked, scoped=bool(filters.searched_papers))
        chosen = summary_beside(question, chosen, names, filters, passages.opening)
        chosen = count_beside(question, chosen, names, filters, passages)
        chosen = tables_beside_captions(question, chosen, self.figures)
        chosen = values_beside_notation(question, chosen, self._texts, passages)
        chosen = values_stated(question, chosen, names, filters, passages)
        chosen = self._table_asked(question, chosen, filters)
        sources = self.with_records(
            question, names, self.sources_for(chosen), filters.searched_papers, chosen_scope
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

    def _table_asked(
        self, question: str, chosen: Sequence[Candidate], filters: Filters
    ) -> list[Candidate]:
        """`leading.table_asked` for the one paper searched, if any."""
        if len(filters.searched_papers) != 1:
            return list(chosen)
        found = self.catalog.get_paper(filters.searched_papers[0])
        if found is None:
            return list(chosen)
        return table_asked(question, chosen, found, self.figures, self._texts)

    def _texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """The text of each chunk named (`leading.ChunkTexts`)."""
        return {chunk: row.text for chunk, row in self.catalog.chunk_rows(chunk_ids).items()}

    def names_another(self, question: str, papers: Sequence[str]) -> bool:
        """Whether `question` names a paper other than `papers`: it writes a name as a name
        (`asked_names`; not its long form, "reinforcement learning" for "RL") that papers
        of the library introduce, none of them among `papers`, and that none of `papers`
        prints ("RAG" asked after an answer about REALM). A name the papers print ("GPT-2"
        in FlashAttention's, "PDFs" in S2ORC's) is a thing they tell about."""
        written = set(asked_names(question))
        if self.names is None or not written:
            return False
        passages = PassagesRead(self.paper_passages)
        for match in self.names.recognise(question).matches:
            if match.asked not in written or not match.own_papers:
                continue
            if set(match.own_papers) & set(papers):
                continue
            if not any(self._prints(paper, match.asked, passages) for paper in papers):
                return True
        return False

    def _prints(self, paper_id: str, name: str, passages: PassagesRead) -> bool:
        """Whether a paper's title or passages print `name` as a word of its own."""
        found = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        paper = self.catalog.get_paper(paper_id)
        texts = [paper.title if paper else "", *(t for _, t in passages(paper_id))]
        return any(found.search(text) for text in texts)

    def with_records(
        self,
        question: str,
        names: Recognised,
        sources: Sequence[Source],
        scope: Sequence[str] = (),
        only_scope: bool = False,
    ) -> list[Source]:
        """The record of the paper a record question asks about (its authors, date, venue,
        whom it cites or who cites it: `chat/rag/records`; the `scope`'s papers when it
        names none) first, the passages after it, numbered again. With `only_scope` (the
        caller chose the papers), a paper the question names outside them has no record."""
        asked = read_question(question, self.catalog, names, scope)
        if asked is not None and only_scope:
            kept = tuple(p for p in asked.paper_ids if p in scope)
            asked = replace(asked, paper_ids=kept) if kept else None
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


class PassagesRead:
    """A paper's passages (`read`: chunk id and text, in reading order) read from the
    catalog once and kept for the one retrieval that asks again: made for each, so a
    paper ingested again is read afresh by the next."""

    def __init__(self, read: Callable[[str], Sequence[tuple[str, str]]]) -> None:
        self._read = read
        self._kept: dict[str, tuple[tuple[str, str], ...]] = {}

    def __call__(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        if paper_id not in self._kept:
            self._kept[paper_id] = tuple(self._read(paper_id))
        return self._kept[paper_id]

    def opening(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """The paper's first `OPENING_PASSAGES` (`Searches.opening`)."""
        return self(paper_id)[:OPENING_PASSAGES]


def _scale(share: float, low: float, high: float) -> float:
    """0 up to `low`, rising to 1 at `high` and beyond."""
    if share >= high:
        return 1.0
    return max(0.0, (share - low) / (high - low)) if high > low else 0.0
