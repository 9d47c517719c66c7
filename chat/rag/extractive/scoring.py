"""How well each source sentence answers a question, and the choice of a few that together
answer it best: relevant, different from each other, covering the question's terms.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from itertools import pairwise

from chat.rag.extractive.question import QuestionTerms
from chat.rag.extractive.sentences import Sentence
from chat.rag.extractive.word_forms import family
from ingest.index.lexical.analysis import terms

# Each sentence's terms as the question sees them (`QuestionTerms.sentence_terms`).
Found = Mapping[Sentence, tuple[str, ...]]
Weigh = Callable[[dict[Sentence, float]], dict[Sentence, float]]
_BRACKET_REFERENCE = re.compile(r"\[[\d,\s\u2013-]+\]")
_DIGIT = re.compile(r"\d")
_BM25_K1 = 1.2
_BM25_B = 0.5
_BIGRAM_WEIGHT = 0.5
_NUMBER_BONUS = 0.3
# For a sentence that gives a count of what the question counts ("23 categories").
_COUNT_BONUS = 2.0
_COUNT_GAP = 2  # words at most between the number and what it counts
_NUMBER_WORDS = frozenset(
    [
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "hundreds",
        "thousand",
        "thousands",
        "million",
        "millions",
        "billion",
        "billions",
        "dozen",
        "dozens",
    ]
)
_RANK_DECAY = 0.05
_REDUNDANCY = 0.5
_COVERAGE = 0.15  # what a sentence gains for question terms no chosen sentence holds yet
_DUPLICATE = 0.6  # shared terms over all terms at which two sentences say the same
_CONTAINED = 0.8  # shared terms over the shorter one's at which one repeats the other
_RELATIVE_FLOOR = 0.3
_PAPER_PRIOR = 1.0


def _idf(found: Found) -> dict[str, float]:
    df = Counter(t for held in found.values() for t in set(held))
    n = len(found)
    return {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}


def _bm25(
    held: tuple[str, ...], weights: dict[str, float], idf: dict[str, float], avg: float
) -> float:
    counts = Counter(held)
    norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * len(held) / avg)
    return sum(
        weight * idf[t] * counts[t] * (_BM25_K1 + 1) / (counts[t] + norm)
        for t, weight in weights.items()
        if counts[t]
    )


def _has_number(text: str) -> bool:
    return bool(_DIGIT.search(_BRACKET_REFERENCE.sub("", text)))


def counts(text: str, counted: frozenset[str]) -> bool:
    """Whether `text` gives a number of what `counted` (terms) names: a number, in digits
    or words, then within `_COUNT_GAP` words one of its terms, or a word of its family
    ("23 categories", "ten participants", "16 positive and 16 negative", "500 dimensional"
    for dimensions)."""
    tokens = _BRACKET_REFERENCE.sub("", text).split()
    families = {family(t) for t in counted}
    for index, token in enumerate(tokens):
        word = token.strip("(,;:.").lower()
        if not (_DIGIT.search(word) or word in _NUMBER_WORDS):
            continue
        after = terms(" ".join(tokens[index + 1 : index + 2 + _COUNT_GAP]))
        if counted.intersection(after) or families.intersection(map(family, after)):
            return True
    return False


def _relevance(query: QuestionTerms, found: Found) -> dict[Sentence, float]:
    idf = _idf(found)
    avg = sum(len(held) for held in found.values()) / max(len(found), 1) or 1.0
    mean_idf = sum(idf.get(t, 0.0) for t in query.weights) / max(len(query.weights), 1)
    scores: dict[Sentence, float] = {}
    for s, held in found.items():
        if not query.content.intersection(held):
            scores[s] = 0.0
            continue
        value = _bm25(held, query.weights, idf, avg)
        value += _BIGRAM_WEIGHT * mean_idf * len(query.bigrams & set(pairwise(held)))
        if query.wants_number and _has_number(s.text):
            value *= 1 + _NUMBER_BONUS
        if query.counted and counts(s.text, query.counted):
            value *= 1 + _COUNT_BONUS
        scores[s] = value / (1 + _RANK_DECAY * s.rank)
    return scores


def _favour_best_paper(scores: dict[Sentence, float]) -> dict[Sentence, float]:
    """Scale each sentence by how well its paper's best sentence matches, relative to the top."""
    strength: dict[str, float] = {}
    for s, value in scores.items():
        strength[s.source.id] = max(strength.get(s.source.id, 0.0), value)
    top = max(strength.values(), default=0.0) or 1.0
    return {s: v * (strength[s.source.id] / top) ** _PAPER_PRIOR for s, v in scores.items()}


def score_sentences(
    query: QuestionTerms, found: Found, weigh: Weigh | None = None
) -> dict[Sentence, float]:
    """How well each sentence (with the question's terms `found` in it) answers the
    question; 0 when it shares no content term. `weigh` adjusts the sentences' own
    scores before each is scaled by its paper's best (the answer's kind, say)."""
    relevance = _relevance(query, found)
    return _favour_best_paper(weigh(relevance) if weigh else relevance)


def similarity(a: Sentence, b: Sentence) -> float:
    """Shared terms over all terms of the two (Jaccard)."""
    left, right = set(a.terms), set(b.terms)
    return len(left & right) / max(len(left | right), 1)


def repeats(a: Sentence, b: Sentence) -> bool:
    """Whether the two say the same: nearly the same terms, or one's terms nearly all in
    the other's."""
    left, right = set(a.terms), set(b.terms)
    shared = len(left & right)
    return (
        shared / max(len(left | right), 1) >= _DUPLICATE
        or shared / max(min(len(left), len(right)), 1) >= _CONTAINED
    )


def _pool(
    query: QuestionTerms, scores: dict[Sentence, float], found: Found, best: float
) -> list[Sentence]:
    """The sentences worth choosing from: those that score near the best, and the best
    of those that alone hold a content term of the question ("... and what is X?")."""
    pool = [s for s, v in scores.items() if v > 0 and v >= _RELATIVE_FLOOR * best]
    held = set().union(*(found[s] for s in pool)) if pool else set()
    for term in query.content - held:
        holding = [s for s, v in scores.items() if v > 0 and term in found[s]]
        if holding:
            pool.append(max(holding, key=lambda s: scores[s]))
    return list(dict.fromkeys(pool))


def select_sentences(
    query: QuestionTerms,
    scores: dict[Sentence, float],
    found: Found,
    max_sentences: int,
    per_source: int,
) -> list[Sentence]:
    """Greedy choice of relevant, mutually different sentences that together cover the
    question's content terms (maximal marginal relevance), best first."""
    best = max(scores.values(), default=0.0)
    pool = _pool(query, scores, found, best)
    content = query.content
    chosen: list[Sentence] = []
    covered: set[str] = set()
    taken: Counter[str] = Counter()
    # The source of the best sentence may give one sentence more than the others.
    lead = max(pool, key=lambda s: scores[s]).source.chunk_id if pool else ""
    while pool and len(chosen) < max_sentences:
        seen = frozenset(covered)

        def marginal(s: Sentence, seen: frozenset[str] = seen) -> float:
            overlap = max((similarity(s, c) for c in chosen), default=0.0)
            new = len(content.intersection(found[s]) - seen) / max(len(content), 1)
            return scores[s] - _REDUNDANCY * best * overlap + _COVERAGE * best * new

        pick = max(pool, key=marginal)
        pool.remove(pick)
        if taken[pick.source.chunk_id] >= per_source + (pick.source.chunk_id == lead):
            continue
        if any(repeats(pick, c) for c in chosen):
            continue
        chosen.append(pick)
        covered |= content.intersection(found[pick])
        taken[pick.source.chunk_id] += 1
    return chosen
