"""Answers without a language model: the source sentences that best answer the question.

Every word of an extractive answer is quoted from a source; only the citations
and the whitespace between sentences are added. `ExtractiveGenerator` is this
as the answerer's `AnswerGenerator` (`chat/rag/generators.py`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from chat.rag.generators import NOT_FOUND
from chat.rag.llm import LlmChunk
from chat.rag.prompts import Turn
from chat.rag.sampling import Sampling, TokenCount
from chat.rag.sources import Source
from ingest.index.analysis import terms, words

# Tokens that end with a period without ending a sentence (compared lower case, period dropped).
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "al",
        "cf",
        "vs",
        "fig",
        "figs",
        "eq",
        "eqs",
        "sec",
        "secs",
        "tab",
        "no",
        "nos",
        "approx",
        "resp",
        "ref",
        "refs",
        "dr",
        "mr",
        "ms",
        "prof",
        "st",
        "ch",
        "chap",
        "vol",
        "pp",
        "ed",
        "eds",
        "viz",
        "ca",
        "incl",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
_BOUNDARY = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s+")
_SENTENCE_START = re.compile(r"[\"'\u201c\u2018(\[]?[A-Z0-9]")
_ARXIV_STAMP = re.compile(
    r"arXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?(?:\s*\[[\w.-]+\])?(?:\s+\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4})?"
)
_BRACKET_REFERENCE = re.compile(r"\[[\d,\s\u2013-]+\]")
_DOTTED = re.compile(r"(?:[a-z]{1,2}\.)+[a-z]{1,2}")
_DIGIT = re.compile(r"\d")
# Words by which a question leans on an earlier one.
_FOLLOW_UP = re.compile(
    r"\b(it|its|they|them|their|this|that|these|those|he|she|the paper|the method|"
    r"the model|the authors?|above|previous|same)\b",
    re.IGNORECASE,
)
# Words a question uses to frame what it asks for rather than what it is about (stems).
_FRAME_TERMS = frozenset(
    [
        "paper",
        "propos",
        "method",
        "approach",
        "work",
        "studi",
        "present",
        "introduc",
        "describ",
        "rememb",
        "recal",
        "call",
        "name",
        "one",
        "know",
        "articl",
        "author",
        "research",
        "idea",
        "techniqu",
        "show",
    ]
)
# Common verbs that count for scoring but alone do not make a sentence relevant (stems).
_GENERIC_TERMS = frozenset(["use", "make", "get", "give", "way", "thing"])
_ASKS_FOR_NUMBER = re.compile(
    r"\bhow (?:many|much|large|big|long|fast|often|far|small|high|low|well)\b"
    r"|\b(?:accuracy|score|percent(?:age)?|rate|number of|size|speed-?up|gain|improvement"
    r"|error|bleu|f1|parameters|dimension|value|by how)\b",
    re.IGNORECASE,
)
_FRAME_WEIGHT = 0.25
_BM25_K1 = 1.2
_BM25_B = 0.5
_BIGRAM_WEIGHT = 0.5
_NUMBER_BONUS = 0.3
_RANK_DECAY = 0.05
_REDUNDANCY = 0.5
_DUPLICATE = 0.6
_RELATIVE_FLOOR = 0.3
_PER_SOURCE = 2
_MAX_WORDS = 80
_MIN_WORDS = 4
_PAPER_PRIOR = 1.0


@dataclass(frozen=True)
class Sentence:
    """One candidate sentence, where it came from, and its lexical terms."""

    text: str
    source: Source
    rank: int  # the source's place in the retrieved order, 0 = best
    position: int  # the sentence's place within its source
    terms: tuple[str, ...]
    is_title: bool


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage, not split at abbreviations, initials or decimals."""
    flat = " ".join(_ARXIV_STAMP.sub(" ", text).split())
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(flat):
        if not _SENTENCE_START.match(flat, match.end()) or _ends_with_abbreviation(
            flat[start : match.start() + 1]
        ):
            continue
        pieces.append(flat[start : match.end()].strip())
        start = match.end()
    pieces.append(flat[start:].strip())
    return [piece for piece in pieces if piece]


def _ends_with_abbreviation(text: str) -> bool:
    last = text.rsplit(" ", 1)[-1].lstrip("([\"'\u201c").rstrip(".").lower()
    if last in _ABBREVIATIONS:
        return True
    if len(last) == 1:
        return text[-2].isupper()  # an initial, as in "J. Smith"
    return _DOTTED.fullmatch(last) is not None  # "U.S.", "Ph.D."


def is_debris(sentence: str) -> bool:
    """True for a sentence that is mostly numbers, symbols or stray letters, or a run-on
    blob (pseudo-code, a table read as text) far longer than any real sentence."""
    tokens = sentence.split()
    lexical = [w for w in words(sentence) if w.isalpha() and len(w) > 1]
    too_long = len(tokens) > _MAX_WORDS
    return too_long or len(lexical) < _MIN_WORDS or len(lexical) < 0.5 * len(tokens)


def source_sentences(source: Source, rank: int) -> list[Sentence]:
    """The candidate sentences of one source; an abstract's title line is marked as such."""
    title, body = "", source.text
    if source.kind == "abstract" and "\n\n" in source.text:
        title, body = source.text.split("\n\n", 1)
    texts = [(t, True) for t in split_sentences(title)]
    texts += [(t, False) for t in split_sentences(body)]
    return [
        Sentence(text, source, rank, position, tuple(terms(text)), is_title)
        for position, (text, is_title) in enumerate(texts)
        if not is_debris(text)
    ]


def _idf(sentences: Sequence[Sentence]) -> dict[str, float]:
    df = Counter(t for s in sentences for t in set(s.terms))
    n = len(sentences)
    return {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}


def _bm25(
    sentence: Sentence, weights: dict[str, float], idf: dict[str, float], avg: float
) -> float:
    counts = Counter(sentence.terms)
    norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * len(sentence.terms) / avg)
    return sum(
        weight * idf[t] * counts[t] * (_BM25_K1 + 1) / (counts[t] + norm)
        for t, weight in weights.items()
        if counts[t]
    )


def _bigrams(items: Sequence[str]) -> set[tuple[str, str]]:
    return set(pairwise(items))


def _has_number(text: str) -> bool:
    return bool(_DIGIT.search(_BRACKET_REFERENCE.sub("", text)))


@dataclass(frozen=True)
class _Query:
    """What scoring needs to know about the question."""

    weights: dict[str, float]  # question term -> weight (framing words count less)
    content: frozenset[str]  # the terms a relevant sentence must share with it
    bigrams: frozenset[tuple[str, str]]
    wants_number: bool

    @classmethod
    def parse(cls, question: str) -> _Query:
        stems = terms(question)
        weights = {t: _FRAME_WEIGHT if t in _FRAME_TERMS else 1.0 for t in stems}
        content = {t for t, w in weights.items() if w == 1.0 and t not in _GENERIC_TERMS}
        content = content or set(weights)
        wants_number = bool(_ASKS_FOR_NUMBER.search(question))
        return cls(weights, frozenset(content), frozenset(_bigrams(stems)), wants_number)


def _relevance(query: _Query, sentences: Sequence[Sentence]) -> dict[Sentence, float]:
    idf = _idf(sentences)
    avg = sum(len(s.terms) for s in sentences) / max(len(sentences), 1) or 1.0
    mean_idf = sum(idf.get(t, 0.0) for t in query.weights) / max(len(query.weights), 1)
    scores: dict[Sentence, float] = {}
    for s in sentences:
        if not query.content.intersection(s.terms):
            scores[s] = 0.0
            continue
        value = _bm25(s, query.weights, idf, avg)
        value += _BIGRAM_WEIGHT * mean_idf * len(query.bigrams & _bigrams(s.terms))
        if query.wants_number and _has_number(s.text):
            value *= 1 + _NUMBER_BONUS
        scores[s] = value / (1 + _RANK_DECAY * s.rank)
    return scores


def _favour_best_paper(scores: dict[Sentence, float]) -> dict[Sentence, float]:
    """Scale each sentence by how well its paper's best sentence matches, relative to the top."""
    strength: dict[str, float] = {}
    for s, value in scores.items():
        strength[s.source.id] = max(strength.get(s.source.id, 0.0), value)
    top = max(strength.values(), default=0.0) or 1.0
    return {s: v * (strength[s.source.id] / top) ** _PAPER_PRIOR for s, v in scores.items()}


def score_sentences(question: str, sentences: Sequence[Sentence]) -> dict[Sentence, float]:
    """How well each sentence answers the question; 0 when it shares no content term."""
    return _favour_best_paper(_relevance(_Query.parse(question), sentences))


def _similarity(a: Sentence, b: Sentence) -> float:
    left, right = set(a.terms), set(b.terms)
    return len(left & right) / max(len(left | right), 1)


def select_sentences(
    scores: dict[Sentence, float], max_sentences: int, per_source: int
) -> list[Sentence]:
    """Greedy choice of relevant, mutually different sentences (maximal marginal relevance)."""
    best = max(scores.values(), default=0.0)
    pool = [s for s, v in scores.items() if v > 0 and v >= _RELATIVE_FLOOR * best]
    chosen: list[Sentence] = []
    taken: Counter[str] = Counter()
    # The source of the best sentence may give one sentence more than the others.
    lead = max(pool, key=lambda s: scores[s]).source.chunk_id if pool else ""
    while pool and len(chosen) < max_sentences:

        def marginal(s: Sentence) -> float:
            overlap = max((_similarity(s, c) for c in chosen), default=0.0)
            return scores[s] - _REDUNDANCY * best * overlap

        pick = max(pool, key=marginal)
        pool.remove(pick)
        if taken[pick.source.chunk_id] >= per_source + (pick.source.chunk_id == lead):
            continue
        if any(_similarity(pick, c) >= _DUPLICATE for c in chosen):
            continue
        chosen.append(pick)
        taken[pick.source.chunk_id] += 1
    return sorted(chosen, key=lambda s: (s.rank, s.position))


def format_pieces(chosen: Sequence[Sentence]) -> list[str]:
    """One piece per sentence with its citation; sources are separated by a blank line."""
    pieces: list[str] = []
    for index, sentence in enumerate(chosen):
        following = chosen[index + 1] if index + 1 < len(chosen) else None
        if following is None:
            gap = ""
        elif following.source.chunk_id == sentence.source.chunk_id:
            gap = " "
        else:
            gap = "\n\n"
        pieces.append(f"{sentence.text} {sentence.source.citation}{gap}")
    return pieces


def extract_answer(
    question: str, sources: Sequence[Source], *, max_sentences: int = 4
) -> list[str]:
    """The sentences of `sources` that best answer `question`, each with its citation.

    `sources` are ordered best first. The result is the pieces to stream, in
    order; it is empty when no sentence shares a content term with the question.
    """
    sentences = [s for rank, src in enumerate(sources) for s in source_sentences(src, rank)]
    body = [s for s in sentences if not s.is_title]
    scores = score_sentences(question, sentences)
    if any(scores[s] > 0 for s in body):
        scores = {s: scores[s] for s in body}
    distinct = len({src.chunk_id for src in sources})
    per_source = _PER_SOURCE if distinct >= 3 else max_sentences
    return format_pieces(select_sentences(scores, max_sentences, per_source))


class ExtractiveGenerator:
    """Answers by quoting the sources (`extract_answer`), without a model.

    A caller's stop sequences and `max_tokens` (counted by `count_tokens`; not
    applied without it) end the quotation as a model's server would end its text.
    """

    mode = "extractive"
    model_name = ""

    def __init__(self, count_tokens: TokenCount | None = None) -> None:
        self.count_tokens = count_tokens

    async def standalone(self, question: str, history: Sequence[Turn]) -> str:
        """The previous question carried along when this one leans on it."""
        previous = [t.content for t in history if t.role == "user"]
        if previous and (_FOLLOW_UP.search(question) or len(question.split()) < 6):
            return f"{previous[-1]} {question}"
        return question

    async def generate(
        self,
        question: str,
        sources: Sequence[Source],
        history: Sequence[Turn],
        sampling: Sampling | None = None,
    ) -> AsyncIterator[LlmChunk]:
        pieces = extract_answer(question, sources) or [NOT_FOUND]
        finish = "stop"
        if sampling is not None:
            kept, finish = sampling.limit("".join(pieces), self.count_tokens)
            pieces = _first_chars(pieces, len(kept))
        for piece in pieces:
            yield LlmChunk(text=piece)
        yield LlmChunk(finish_reason=finish)

    async def aclose(self) -> None:
        """Nothing to release."""


def _first_chars(pieces: Sequence[str], length: int) -> list[str]:
    """The pieces that make up the first `length` characters of their text, the last cut."""
    kept: list[str] = []
    for piece in pieces:
        if length <= 0:
            break
        kept.append(piece[:length])
        length -= len(piece)
    return [p for p in kept if p]
