"""Query expansion: names' long forms, co-occurring terms, and WordNet's words for plain ones.

Three sources, each behind its own setting (docs/adaptation.md has the
measurements):

- names: the long forms of every name the question holds that a paper
  defines ("CBCT" -> "cone-beam computed tomography"), not only of the one
  it is about (`chat.rag.names`), are added to the BM25 query;
- co-occurrence: for each of the question's rarer terms, the terms that the
  passages holding it share far more often than the index does (term
  co-occurrence, read from BM25's own passages for that term alone):
  "cbct" brings "projection", "tomography", "reconstruction";
- synonyms: for each everyday word of the question (not one of the papers'
  own, `chat.rag.retrieval.vocabulary`), the words WordNet gives for its
  first senses (synonyms, the kinds it is of), those the papers use most
  against English first: "photos" brings "photograph" and "image",
  "spotting" brings "detection". Each weighs less than a question word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from chat.rag.bounds import check_bounds, described
from chat.rag.retrieval.vocabulary import scholarly_ratio
from chat.rag.retrieval.wordnet.database import Related
from ingest.index.lexical.analysis import terms
from ingest.index.lexical.bm25 import inverse_document_frequency

WeightedTerm = tuple[str, float]


@dataclass(frozen=True)
class ExpansionConfig:
    """Expansion of the BM25 query from the library's vocabulary
    (`PAPERCHAT_RETRIEVAL__EXPANSION__*`)."""

    all_names: bool = field(
        default=False,
        metadata=described(
            "add the long forms of every defined name in the question, not only of the one "
            "the question is about"
        ),
    )
    cooccurring: int = field(
        default=0,
        metadata=described(
            "terms added for each rarer question term, those its passages share most; 0 off",
            at_least=0,
        ),
    )
    passages: int = field(
        default=30,
        metadata=described("passages read for a term's co-occurring terms", at_least=1),
    )
    max_share: float = field(
        default=0.02,
        metadata=described(
            "a question term in more than this share of the chunks is too common to expand",
            at_least=0,
        ),
    )
    weight: float = field(
        default=0.3,
        metadata=described(
            "the weight of the best co-occurring term against a question term's 1", at_least=0
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)


def expandable(
    idf: Mapping[str, float], frequency: Mapping[str, int], documents: int, max_share: float
) -> list[str]:
    """The question's terms rare enough to expand: in 2 chunks or more, and in no more
    than `max_share` of them (a term of one chunk is a name or a typo)."""
    return [t for t in idf if 2 <= frequency.get(t, 0) <= max_share * documents and not t.isdigit()]


def cooccurring_terms(
    passages: Iterable[str],
    asked: Sequence[str],
    document_frequency: Callable[[Sequence[str]], Mapping[str, int]],
    documents: int,
    config: ExpansionConfig,
) -> list[WeightedTerm]:
    """The `config.cooccurring` terms the `passages` (those of one question term) hold most
    often against how often the index holds them: share of the passages holding the term
    times its inverse document frequency; weighted `config.weight` for the best, less for
    the rest. Terms of the question and terms of one chunk only are left out."""
    texts = list(passages)
    if not texts or not config.cooccurring:
        return []
    holding: Counter[str] = Counter()
    for text in texts:
        holding.update({t for t in terms(text) if len(t) >= 3 and not t.isdigit()})
    own = set(asked)
    candidates = [t for t, n in holding.items() if n >= 2 and t not in own]
    frequency = document_frequency(candidates)
    scored = {
        t: holding[t] / len(texts) * inverse_document_frequency(frequency.get(t, 0), documents)
        for t in candidates
        if frequency.get(t, 0) > 1
    }
    best = sorted(scored.items(), key=lambda pair: (-pair[1], pair[0]))[: config.cooccurring]
    if not best:
        return []
    top = best[0][1]
    return [(t, config.weight * score / top) for t, score in best]


def merged(*lists: Sequence[WeightedTerm]) -> list[WeightedTerm]:
    """One weight per term, the largest any list gives it, in the order first seen."""
    weights: dict[str, float] = {}
    for found in lists:
        for term, weight in found:
            weights[term] = max(weights.get(term, 0.0), weight)
    return list(weights.items())


# Where Debian's `wordnet-base` puts the database (`scripts/install` installs it).
WORDNET_DIR = "/usr/share/wordnet"


@dataclass(frozen=True)
class SynonymsConfig:
    """WordNet's words for the question's everyday words, added to the BM25 query
    (`PAPERCHAT_RETRIEVAL__SYNONYMS__*`)."""

    # Off: over the full index 8 words lift the development plain-language questions'
    # R@5 from 0.377 to 0.420 but not the held-out ones' (0.452; docs/adaptation.md).
    terms: int = field(
        default=0,
        metadata=described("words added to one question at most; 0 turns synonyms off", at_least=0),
    )
    per_word: int = field(
        default=2, metadata=described("words added for one everyday word at most", at_least=1)
    )
    senses: int = field(
        default=2,
        metadata=described("a word's most frequent senses whose words are taken", at_least=1),
    )
    weight: float = field(
        default=0.5,
        metadata=described(
            "a synonym's weight against a question word's 1 (below 1); the kinds a word is "
            "of and similar words weigh half of it",
            at_least=0,
        ),
    )
    context: int = field(
        default=10,
        metadata=described(
            "the best dense passages that tell a word's sense: a word is added only when one "
            "of them holds it, those most of them hold first; 0 takes the words the papers "
            "use most against English instead",
            at_least=0,
        ),
    )
    max_share: float = field(
        default=0.05,
        metadata=described(
            "a word in more than this share of the chunks is too common to add", at_least=0
        ),
    )
    wordnet_dir: str = field(
        default=WORDNET_DIR,
        metadata=described(
            "the WordNet database (`index.noun`, `data.noun`, ...); without it no synonyms"
        ),
    )

    def __post_init__(self) -> None:
        check_bounds(self)
        if self.weight >= 1:
            raise ValueError("weight must be below 1: a synonym weighs less than a question word")


def synonym_terms(
    plain: Mapping[str, str],
    related: Callable[[str], Sequence[Related]],
    document_frequency: Callable[[Sequence[str]], Mapping[str, int]],
    documents: int,
    config: SynonymsConfig,
    context: Mapping[str, int] | None = None,
) -> list[WeightedTerm]:
    """Index terms for the everyday words `plain` (stem -> word, in question order): of
    each word's `related` words, those the `context` passages hold most against how
    many chunks do (stem -> passages holding it; when given, a term none holds is not
    the sense meant), else those the papers use most against English; `config.per_word`
    a word and `config.terms` in all, each word's best taken first. A synonym weighs
    `config.weight`, another relation half of it."""
    if not config.terms:
        return []
    asked = set(plain)
    offered: list[list[tuple[str, str, float]]] = []
    for word in plain.values():
        offered.append(
            [
                (stem, token, config.weight if near.relation == "synonym" else config.weight / 2)
                for near in related(word)
                for token, stem in _stems(near.word)
                if stem not in asked
            ]
        )
    frequency = document_frequency(list({stem for found in offered for stem, _, _ in found}))
    ranked = [_best(found, frequency, documents, config, context) for found in offered]
    chosen: dict[str, float] = {}
    for place in range(config.per_word):
        for found in ranked:
            if place < len(found) and len(chosen) < config.terms:
                stem, weight = found[place]
                chosen.setdefault(stem, weight)
    return list(chosen.items())


def _stems(text: str) -> list[tuple[str, str]]:
    """(word, index term) of each word of `text` that makes one."""
    found = []
    for token in text.lower().replace("-", " ").split():
        stems = terms(token)
        if stems and token.isalpha() and len(token) >= 3:
            found.append((token, stems[0]))
    return found


def _best(
    offered: Sequence[tuple[str, str, float]],
    frequency: Mapping[str, int],
    documents: int,
    config: SynonymsConfig,
    context: Mapping[str, int] | None,
) -> list[WeightedTerm]:
    """One word's offered terms the papers use (in 2 chunks or more, in no more than
    `config.max_share` of them) and, with a `context`, its passages hold; best first."""
    scored: dict[str, tuple[float, float]] = {}
    for stem, token, weight in offered:
        count = frequency.get(stem, 0)
        holding = context.get(stem, 0) if context is not None else 0
        if not 2 <= count <= config.max_share * documents or (context is not None and not holding):
            continue
        # With passages: how many hold it against how many chunks do (its idf); without:
        # how much more the papers use it than English does.
        distinct = (
            holding * inverse_document_frequency(count, documents)
            if context is not None
            else scholarly_ratio(count, documents, token)
        )
        score = (distinct, weight)
        scored[stem] = max(score, scored.get(stem, score))
    best = sorted(scored.items(), key=lambda pair: (-pair[1][0], -pair[1][1], pair[0]))
    return [(stem, weight) for stem, (_, weight) in best]
