"""What one retrieval reads of the indexes: its searches and the passages it reads back.

The dense search (the embedder and the vector store) and BM25's (the lexical
index), and the BM25 searches that widen the query: the long forms of the
question's names, the terms its rarer terms co-occur with (`expansion`),
pseudo-relevance feedback from the best dense passages and RM3 from BM25's own
(`feedback`), WordNet's words for the question's everyday ones (`expansion`,
`wordnet`), and the dense search again from the question's vector moved
toward its best passages' (`feedback`). Then what the catalog holds of the
candidates: their passages for the rerankers, a paper's opening, the sources
handed to the answerer. A question for a setting of the one paper it is about
or the datasets it is tested on reads all that paper's passages, a few hundred
at most, for those that state them (`values_stated`).
`chat.rag.retrieval.retriever.Retriever` puts them in order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from chat.rag.extractive.answer_type import DATASET, NUMBER, SCORE, AnswerType, holds_value
from chat.rag.extractive.question import frame_weight
from chat.rag.extractive.sentences import split_sentences
from chat.rag.extractive.stated import asked_setting, states, stating_scores
from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.rerank.reranker import Passage
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.expansion import cooccurring_terms, expandable, merged, synonym_terms
from chat.rag.retrieval.feedback import expansion_terms, moved_vector, relevance_model
from chat.rag.retrieval.fusion import Candidate, Hit
from chat.rag.retrieval.leading import Figure
from chat.rag.retrieval.vocabulary import question_words
from chat.rag.retrieval.wordnet.database import open_wordnet
from chat.rag.sources import Source
from ingest.index.filters import Filters
from ingest.index.lexical.analysis import terms
from ingest.index.records import Paper, arxiv_url

if TYPE_CHECKING:
    # Only named in signatures: importing the retriever need not pay for Chroma and the
    # embedders (about half a second).
    from ingest.embedders.base import Embedder
    from ingest.index.catalog import Catalog
    from ingest.index.lexical.bm25 import LexicalIndex
    from ingest.index.vectors.store import ChunkStore

# A paper's first passages, where it says what its method is (`Searches.opening`).
OPENING_PASSAGES = 12
# Passages stating an asked value put first at most: the values a paper tries and keeps.
_MOST_STATED = 3
_STEM_CHARS = 4  # a noun's stem's first letters, looked for in a passage's text first
_SHARED_TERMS = 2  # the question's words a sentence naming datasets shares at least
_PARTS = re.compile(r"\b(?:consists? of|compris|composed of|made up of)", re.IGNORECASE)
# (chunk id, text) of all of a paper's passages, in the order the paper reads.
Passages = Callable[[str], Sequence[tuple[str, str]]]


class Searches:
    """The indexes and the embedder one retrieval searches, with its config."""

    def __init__(
        self,
        catalog: Catalog,
        store: ChunkStore,
        lexical: LexicalIndex,
        embedder: Embedder,
        config: RetrievalConfig | None = None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.lexical = lexical
        self.embedder = embedder
        self.config = config or RetrievalConfig()

    def dense(self, question: str, filters: Filters) -> list[Hit]:
        """(chunk id, paper id, cosine similarity), best first.

        Each chunk's paper comes from the catalog: asking Chroma for the chunks'
        metadata cost ~10 ms a query, ten times the search itself. Chunks the
        catalog does not hold are left out.
        """
        vector = self.embedder.embed([question])[0]
        nearest = self.store.search(vector, self.config.candidates, filters)
        papers = self.catalog.chunk_papers([chunk_id for chunk_id, _ in nearest])
        config, feedback = self.config, self.config.dense_feedback
        if feedback.applies(question, self.lexical, config.vocabulary, config.style):
            first: dict[str, str] = {}
            for chunk_id, _ in nearest:
                if chunk_id in papers and len(first) < feedback.passages:
                    first.setdefault(papers[chunk_id], chunk_id)
            found = self.store.vectors(list(first.values()))
            moved = moved_vector(vector, list(found.values()), feedback.weight)
            nearest = self.store.search(moved, self.config.candidates, filters)
            papers = self.catalog.chunk_papers([chunk_id for chunk_id, _ in nearest])
        hits = [
            (chunk_id, papers[chunk_id], similarity)
            for chunk_id, similarity in nearest
            if chunk_id in papers
        ]
        if filters.categories:
            allowed = self._in_categories({p for _, p, _ in hits}, filters.categories)
            hits = [h for h in hits if h[1] in allowed]
        return hits

    def _in_categories(self, paper_ids: set[str], categories: Sequence[str]) -> set[str]:
        wanted = set(categories)
        papers = {paper_id: self.catalog.get_paper(paper_id) for paper_id in paper_ids}
        return {i for i, p in papers.items() if p is not None and wanted & set(p.categories)}

    def lexical_search(
        self, question: str, filters: Filters, extra: Sequence[tuple[str, float]] = ()
    ) -> list[Hit]:
        return self.lexical.search(question, self.config.candidates, filters, extra=extra)

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

    def synonyms(
        self, question: str, scholarly: Sequence[str], dense: Sequence[Hit]
    ) -> list[tuple[str, float]]:
        """WordNet's words for the question's everyday words, those not among its
        `scholarly` terms, in the senses the best `dense` passages use
        (`expansion.synonym_terms`); none when off or without WordNet."""
        config = self.config.synonyms
        wordnet = open_wordnet(config.wordnet_dir) if config.terms else None
        if wordnet is None:
            return []
        context: Counter[str] | None = None
        if config.context:
            rows = self.catalog.chunk_rows([chunk_id for chunk_id, _, _ in dense[: config.context]])
            context = Counter(t for row in rows.values() for t in set(terms(row.text)))
        papers = set(scholarly)
        plain = {
            stem: word
            for stem, word in question_words(question).items()
            if stem not in papers and word.isalpha() and len(word) >= 3
        }
        senses = config.senses
        return synonym_terms(
            plain,
            lambda word: wordnet.related(word, senses),
            self.lexical.document_frequencies,
            self.lexical.count(),
            config,
            context,
        )

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

    def paper_passages(self, paper_id: str) -> list[tuple[str, str]]:
        """(chunk id, text) of all of a paper's passages in reading order: its abstract,
        then its body (`chat.rag.retrieval.leading.Opening`)."""
        chunks = [
            *self.catalog.unit_chunks(paper_id, "abstract"),
            *(c for c in self.catalog.unit_chunks(paper_id, "fulltext") if c.kind == "fulltext"),
        ]
        return [(c.id, c.text) for c in chunks]

    def figures(self, paper_id: str) -> list[Figure]:
        """A paper's captions and tables in reading order (`leading.Figures`)."""
        return [
            Figure(c.id, c.kind, c.number, c.page_start, c.section if c.kind == "caption" else "")
            for c in self.catalog.unit_chunks(paper_id, "fulltext")
            if c.kind in ("caption", "table")
        ]

    def opening(self, paper_id: str) -> list[tuple[str, str]]:
        """(chunk id, text) of a paper's first passages: its abstract, then its body's
        first `OPENING_PASSAGES` (`chat.rag.retrieval.leading.Opening`)."""
        return self.paper_passages(paper_id)[:OPENING_PASSAGES]

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
        papers = self._papers(candidates)
        found = {}
        for candidate in candidates:
            row = rows.get(candidate.chunk_id)
            paper = papers.get(candidate.paper_id)
            title = paper.title if paper is not None else ""
            text = row.text if row is not None else ""
            found[candidate.chunk_id] = Passage(candidate.chunk_id, title, text)
        return found

    def sources_for(self, chosen: Sequence[Candidate]) -> list[Source]:
        rows = self.catalog.chunk_rows([c.chunk_id for c in chosen])
        papers = self._papers(chosen)
        sources = []
        for n, candidate in enumerate(chosen, start=1):
            row = rows[candidate.chunk_id]
            paper = papers.get(candidate.paper_id)
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

    def _papers(self, candidates: Sequence[Candidate]) -> dict[str, Paper]:
        """The candidates' papers the catalog holds, by id, read in one query."""
        return {p.id: p for p in self.catalog.papers_among([c.paper_id for c in candidates])}


def values_stated(
    question: str,
    chosen: Sequence[Candidate],
    names: Recognised,
    filters: Filters,
    passages: Passages,
) -> list[Candidate]:
    """`chosen` with, first, the passages (`_MOST_STATED` at most) of the one paper the
    question is scoped to (the caller's or the question's one paper, else the one paper
    a name of the question is the own name of, when the search ranks it first) whose
    sentences state what is asked: the noun asked a value of beside a value
    (`stated.states`: "at a temperature of 20"), or, for "which datasets", names of
    datasets in a sentence holding two more of the question's words ("We test our method
    on PASCAL VOC and MS COCO"), or, for "What agents does PaSa consist of?", the noun
    in a sentence telling what consists of what ("PaSa consists of two LLM agents").
    Those with more such sentences and more of the question's other words first, then
    in the order the paper reads. Every passage of the paper is read, a few hundred at
    most; a passage that explains the setting at length but states no value gives way.
    Else `_best_beside`; unchanged for a question about no one paper."""
    answer = AnswerType.parse(question)
    paper = _the_one_paper(chosen, names, filters)
    # "What agents does PaSa consist of?": "PaSa consists of two LLM agents: ...".
    parts = asked_setting(question) if _PARTS.search(question) and not answer.kind else None
    asked = set(terms(question)) - answer.setting - set(terms(" ".join(answer.entities)))
    stems = [t[:_STEM_CHARS] for t in parts or answer.setting or answer.noun]
    if not chosen or not paper:
        return list(chosen)
    if not stems or not (parts or answer.kind in (NUMBER, DATASET)):
        return _best_beside(question, answer, chosen, paper, passages, names.matches)

    def stating(sentence: str) -> bool:
        if parts:
            return not parts.isdisjoint(terms(sentence)) and bool(_PARTS.search(sentence))
        if answer.setting:
            return states(sentence, answer.setting)
        # "On which datasets is it tested?": "We test our method on PASCAL VOC and MS COCO".
        shared = len(asked.intersection(terms(sentence)))
        return shared >= _SHARED_TERMS and holds_value(sentence, DATASET, answer.entities)

    found: list[tuple[int, int, str]] = []
    for place, (chunk, text) in enumerate(passages(paper)):
        lower = text.lower()
        valued = parts or not answer.setting or any(c.isdigit() for c in text)
        if not valued or not any(s in lower for s in stems):
            continue
        held = [s for s in split_sentences(text) if stating(s)]
        if held:
            shared = len(asked.intersection(terms(" ".join(held))))
            found.append((-(len(held) + shared), place, chunk))
    if not found:
        return _best_beside(question, answer, chosen, paper, passages, names.matches)
    leading = [chunk for _, _, chunk in sorted(found)[:_MOST_STATED]]
    top = chosen[0].score
    lead = [Candidate(c, paper, top + 1e-6 * (len(leading) - i)) for i, c in enumerate(leading)]
    return [*lead, *(c for c in chosen if c.chunk_id not in set(leading))]


def _best_beside(
    question: str,
    answer: AnswerType,
    chosen: Sequence[Candidate],
    paper: str,
    passages: Passages,
    own_names: Sequence[NameMatch],
) -> list[Candidate]:
    """`chosen` with, second, the passage of `paper` stating best the value or name asked
    (`stating_scores`), when the search found none as good; unchanged for other questions."""
    if not answer.wants_value and not answer.noun:
        return list(chosen)
    asked = frozenset(t for t in terms(question) if frame_weight(t) == 1)
    valued = answer.kind in (NUMBER, SCORE)
    names = frozenset(t for m in own_names for t in terms(m.asked) if paper in m.own_papers)
    scores = stating_scores(asked, passages(paper), lambda s: not valued or answer.holds(s), names)
    best = max(scores, key=lambda chunk: scores[chunk], default=None)
    if best is None or any(scores.get(c.chunk_id, 0.0) >= scores[best] for c in chosen):
        return list(chosen)  # the search found as good a passage
    return [chosen[0], Candidate(best, paper, chosen[0].score - 1e-6), *chosen[1:]]


def _the_one_paper(chosen: Sequence[Candidate], names: Recognised, filters: Filters) -> str:
    """The paper the question is scoped to: the one searched, else the one paper named
    whose own name the question asks with, when the search ranks it first; "" otherwise."""
    if len(filters.searched_papers) == 1:
        return filters.searched_papers[0]
    if filters.searched_papers or not chosen:
        return ""
    first = chosen[0].paper_id
    own = {p for m in names.matches for p in m.own_papers}
    return first if first in own else ""
