"""Words of one family that the stemmer leaves apart, read as one when a sentence is
matched to a question.

The Snowball stemmer takes one suffix off: "dimensions" is "dimens", "dimensional"
"dimension", "experimental" "experiment" and "experiments" "experi". A question
for "how many dimensions" is answered by "500 dimensional vectors": stemming a
stem again until it stays ("dimension" -> "dimens" -> "dimen") gives the words of
one family one key. The lexical index keeps its stems; only the sentences an
answer quotes are read so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ingest.index.lexical.analysis import terms

_ROUNDS = 3  # stems stemmed again at most (one or two rounds settle nearly every word)
# Each term's family, once read (a question's and its passages' words recur).
_KEPT = 50_000
_families: dict[str, str] = {}


def family(term: str) -> str:
    """The key of `term`'s word family: the stem stemmed again until it stays."""
    known = _families.get(term)
    if known is not None:
        return known
    key = term
    for _ in range(_ROUNDS):
        again = terms(key)
        if len(again) != 1 or again[0] == key:
            break
        key = again[0]
    if len(_families) < _KEPT:
        _families[term] = key
    return key


def families_of(asked: Iterable[str]) -> dict[str, str]:
    """Each question term's family key with the term."""
    return {family(term): term for term in asked}


def family_terms(
    sentences: Iterable[tuple[str, ...]], families: Mapping[str, str]
) -> dict[str, str]:
    """Of the terms of `sentences`, those of a family of the question's (`families`) that
    are not the question's term themselves, each with the question's term ("dimension":
    "dimens")."""
    seen = {term for held in sentences for term in held}
    found = {term: families.get(family(term)) for term in seen}
    return {term: asked for term, asked in found.items() if asked and asked != term}


def with_family_terms(held: tuple[str, ...], kin: Mapping[str, str]) -> tuple[str, ...]:
    """`held` (a sentence's terms) with the question's term for each of its terms that
    `kin` (`family_terms`) maps to one it does not hold."""
    added = [kin[term] for term in held if term in kin and kin[term] not in held]
    return (*held, *dict.fromkeys(added)) if added else held
