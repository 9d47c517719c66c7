"""How text becomes lexical terms: lower case, word tokens, English stop words, Snowball stems.

Ingest and search share this, so a query and the index always agree.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

_APOSTROPHE = "\u2019"  # the typographic apostrophe, as in "don\u2019t"
_WORD_RE = re.compile(rf"[^\W_]+(?:['{_APOSTROPHE}][^\W_]+)?", re.UNICODE)
# The same tokens in lower-case ASCII text, where a word character that is no underscore is
# a letter or a digit: a third faster than the Unicode classes.
_ASCII_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)?")

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "let's",
        "me",
        "more",
        "most",
        "mustn't",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "with",
        "won't",
        "would",
        "wouldn't",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "may",
        "might",
        "must",
        "shall",
        "will",
        "us",
        "via",
        "etc",
    ]
)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def words(text: str) -> list[str]:
    """Lower-cased word tokens, accents folded, stop words kept."""
    folded = unicodedata.normalize("NFKD", text.lower())
    if folded.isascii():  # no combining marks, no typographic apostrophe; most text is ASCII
        plain: list[str] = _ASCII_WORD_RE.findall(folded)
        return plain
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    found: list[str] = _WORD_RE.findall(folded)
    if _APOSTROPHE in folded:
        return [w.replace(_APOSTROPHE, "'") for w in found]
    return found


# Each word's stem, once stemmed, for the first `KEPT_STEMS` words met (the common ones:
# a question, a passage, an abstract are mostly words stemmed before). Stemming was half of
# the time `terms` took.
KEPT_STEMS = 100_000
_stems: dict[str, str] = {}


def terms(text: str) -> list[str]:
    """The stems that the lexical index stores and searches for."""
    found = words(text)
    stems = _stems
    try:  # most often every word was stemmed before: one pass
        return [stems[w] for w in found if w not in STOP_WORDS]
    except KeyError:
        pass
    kept = [w for w in found if w not in STOP_WORDS]
    missing = [w for w in dict.fromkeys(kept) if w not in stems]
    if not missing:
        return [stems[w] for w in kept]
    stemmed = [s.replace("'", "") for s in _stemmer().stemWords(missing)]
    fresh = dict(zip(missing, stemmed, strict=True))
    if len(stems) < KEPT_STEMS:
        stems.update(fresh)
    return [stems.get(w) or fresh[w] for w in kept]
