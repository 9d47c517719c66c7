"""Questions that keep watch: a saved question asked again once new papers arrive, and the
new evidence it then finds.

When a question is saved, its answer is recorded as a `Baseline`: the passages it was
answered from (best first) and the sentences it quoted. Asked again over the index as it is
now, a passage of a newly arrived paper is news when it ranks above the lowest of those
passages (or they all fell out of the answer's sources), scores nearly as well as the best
passage the question now retrieves (a paper on the question's topic ranks high; the paper
that answers it ranks first, or close to first), and it holds a sentence the answer quotes
that the saved answer did not. The sentences are chosen as the extractive answer
chooses them (`chat/rag/extractive/answerer.py`), whichever generator answers chat: the
same measure on both sides of the comparison, and no model call at look time.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from chat.rag.extractive.answerer import compose, quoted_text
from chat.rag.extractive.notation import with_symbols
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.rag.retrieval.retriever import Retriever
from chat.rag.sources import Source
from ingest.index.filters import Filters

# Sentences quoted of the answer as saved, and of each newly arrived paper's passages.
_QUOTED = 4
# A new passage's share of the best passage's retrieval score, at least. Measured with
# bench/quality/watches.py over the full index (docs/watches.md): below 0.9 papers on the
# question's topic that do not answer it fire too, above 0.94 the answering ones start to
# be missed.
_CLOSE_TO_BEST = 0.92


@dataclass(frozen=True)
class Baseline:
    """What the saved answer stood on: its passages' chunk ids, best first, and the
    sentences it quoted."""

    chunk_ids: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """A newly arrived paper's passage that now answers the question: its best quoted
    sentence, and the place the passage took among the answer's sources (0 = first)."""

    paper_id: str
    chunk_id: str
    sentence: str
    citation: str  # `[arXiv:2203.12533]` or `[doc:<id>]`
    rank: int


def _normal(sentence: str) -> str:
    """A sentence as compared: lower case, its words only."""
    return " ".join(re.findall(r"\w+", sentence.lower()))


class Watcher:
    """Asks saved questions: once to record their baseline, then again for what is new.
    Users' own uploads, each an index of its own, are under `uploads_root` when set."""

    def __init__(
        self,
        retriever: Retriever,
        relevance: RelevancePolicy | None = None,
        uploads_root: Path | None = None,
    ) -> None:
        self.retriever = retriever
        self.relevance = relevance or RelevancePolicy()
        self.uploads_root = uploads_root

    def over(self, retriever: Retriever) -> Watcher:
        """The same questions asked of another index (an upload's), judged alike."""
        return Watcher(retriever, self.relevance)

    def _sources(self, question: str, filters: Filters) -> tuple[Source, ...]:
        """The sources an answer would be given; none when they do not answer it."""
        if filters.matches_nothing:
            return ()
        retrieved = self.retriever.retrieve(with_symbols(question), filters)
        return retrieved.sources if self.relevance.judge(retrieved).relevant else ()

    def baseline(self, question: str, filters: Filters) -> Baseline:
        """The answer the question gets now, as a baseline to compare later answers with."""
        sources = self._sources(question, filters)
        answer = compose(question, sources, max_sentences=_QUOTED)
        return Baseline(
            tuple(s.chunk_id for s in sources),
            tuple(quoted_text(s) for s in answer.sentences),
        )

    def news(
        self, question: str, filters: Filters, baseline: Baseline, arrived: Collection[str]
    ) -> list[Evidence]:
        """The evidence the papers of `arrived` now bring the question, one per paper, the
        best ranked first; none when they bring nothing its saved answer did not have."""
        sources = self._sources(question, filters)
        places = {s.chunk_id: i for i, s in enumerate(sources)}
        kept = [places.get(chunk, len(sources)) for chunk in baseline.chunk_ids]
        # A new passage must rank above the lowest of the saved answer's passages.
        bar = max(kept, default=len(sources))
        # And score nearly as well as the best passage retrieved (a catalog record: as any).
        floor = max((s.score for s in sources if s.kind != "record"), default=0.0)
        floor *= _CLOSE_TO_BEST
        fresh = [
            (i, s)
            for i, s in enumerate(sources[:bar])
            if s.id in arrived and (s.kind == "record" or s.score >= floor)
        ]
        if not fresh:
            return []
        # What the saved answer had: its quotes, and its passages still among the sources.
        had = [s.text for s in sources if s.chunk_id in set(baseline.chunk_ids)]
        old = _Known({_normal(sentence) for sentence in baseline.cited}, _normal(" | ".join(had)))
        found: dict[str, Evidence] = {}
        for rank, source in fresh:
            if source.id in found:
                continue
            sentence = _new_sentence(question, source, sources, old)
            if sentence:
                found[source.id] = Evidence(
                    source.id, source.chunk_id, sentence, source.citation, rank
                )
        return list(found.values())


@dataclass(frozen=True)
class _Known:
    """What the saved answer had: the sentences it quoted, and its passages' words."""

    quoted: set[str]
    passages: str

    def holds(self, sentence: str) -> bool:
        words = _normal(sentence)
        return not words or words in self.quoted or f" {words} " in f" {self.passages} "


def _new_sentence(question: str, source: Source, sources: Sequence[Source], old: _Known) -> str:
    """The sentence of `source` the answer quotes first that the saved answer did not have:
    among those of the whole answer, else of `source` alone; "" when none."""
    for among in (sources, [source]):
        answer = compose(question, among, max_sentences=_QUOTED)
        for sentence in answer.sentences:
            if sentence.source.chunk_id != source.chunk_id:
                continue
            text = quoted_text(sentence)
            if not old.holds(text):
                return text
    return ""
