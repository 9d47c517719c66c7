"""The noun a question asks a value of, and the sentences that state that value.

"What temperature do they use?" asks for the value of a setting, not a name:
the sentences that answer print the noun beside a number ("at a temperature
of 20", "temperatures in the range 2.5 to 4", "20 epochs").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

from chat.rag.extractive.sentences import split_sentences
from ingest.index.lexical.analysis import terms

# Nouns of a paper's settings, asked for by their value ("what temperature", "what chunk
# length"), not by a name.
SETTINGS = (
    "temperature|length|size|rate|decay|momentum|dropout|epoch|step|ratio|threshold|margin"
    "|window|width|depth|beam|warm-?up|resolution|budget|coefficient|probability|iteration"
)
_ASKED = re.compile(
    r"\b(?:what|which)\s+(?:[\w-]+\s+){0,3}?([\w-]+)\s+(?:do|does|did|is|are|was|were|has"
    r"|have|had|should|can|would)\b"
    r"|\bwhat (?:is|was|are|were) the\s+(?:[\w-]+\s+){0,2}?([\w-]+)\s+(?:of|for|in|that|used"
    r"|they|it|at|when)\b",
    re.IGNORECASE,
)
# Words at most between the noun and its value: "a temperature of 20", "20 epochs".
_AFTER = 5
_BEFORE = 2
# A number that reads as a label, not a value: "Table 2", "Section 3", "Eq. (4)".
_LABEL = re.compile(r"^(?:tables?|figs?|figures?|sections?|eqs?|equations?|appendix)$", re.I)
_DIGIT = re.compile(r"\d")
# The asked terms a sentence holds at least to be the one of its paper that states a value.
_LEAST_SHARED = 2
# Words after a lone digit that make it no count of them: "at a temperature of 1 using".
_NOT_UNITS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "of",
        "on",
        "or",
        "than",
        "that",
        "the",
        "then",
        "to",
        "using",
        "was",
        "were",
        "when",
        "where",
        "which",
        "while",
        "with",
    ]
)
# Each opens with what the search skips to ("number", a capital), what precedes it looked at
# after: a word boundary before it would be tried at every character of a passage.
_SYMBOL_AFTER = re.compile(r"number(?<!\wnumber) of ([\w-]+)[^.;]{0,40}?\bas ([A-Z])\b")
_SYMBOL_BEFORE = re.compile(r"([A-Z])(?<!\w[A-Z])\s?=\s?(?:the )?number of ([\w-]+)")


def asked_setting(question: str) -> frozenset[str]:
    """The terms of the noun a question for a number asks the value of, the last word
    before its verb ("What temperature do they use?": "temperatur"; "What is the chunk
    length of RETRO?": "length"); none when it has no such word."""
    match = _ASKED.search(question)
    return frozenset(terms(match[1] or match[2])) if match else frozenset()


def states(sentence: str, noun: frozenset[str]) -> bool:
    """Whether `sentence` prints a word of `noun` with a value a few words after or just
    before it ("a temperature of 20", "temperatures in the range 2.5 to 4", "20 epochs")."""
    words = sentence.split()
    for index, word in enumerate(words):
        if noun.isdisjoint(terms(word)):
            continue
        for near in range(max(0, index - _BEFORE), min(len(words), index + _AFTER + 1)):
            label = words[near - 1].strip("(.,") if near else ""
            if near != index and _is_value(words, near) and not _LABEL.match(label):
                return True
    return False


def _is_value(words: Sequence[str], at: int) -> bool:
    """Whether the word at `at` prints a value: more than one digit or a decimal ("20",
    "2.5", "(1, 2, 5, 10)" by its "10)"), or a digit before a word ("4 layers"); not the
    "1" of "a temperature of 1" that restores a default, nor a formula's."""
    printed = words[at].strip("()[],;:.")
    if not _DIGIT.search(printed):
        return False
    if sum(c.isdigit() for c in printed) > 1:
        return True
    following = words[at + 1] if at + 1 < len(words) else ""
    unit = following.isalpha() and following.lower() not in _NOT_UNITS
    return printed[-1:].isdigit() and words[at][-1:].isdigit() and unit


def counted_symbols(text: str) -> list[tuple[str, str]]:
    """(symbol, noun) for each "the number of layers ... as L" or "L = the number of
    layers" of `text`."""
    found = [(m.group(2), m.group(1)) for m in _SYMBOL_AFTER.finditer(text)]
    return found + [(m.group(1), m.group(2)) for m in _SYMBOL_BEFORE.finditer(text)]


def stating_scores(
    asked: frozenset[str],
    passages: Sequence[tuple[str, str]],
    holds: Callable[[str], bool],
    names: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """For each passage of one paper's `passages` ((id, text), all of them) with a sentence
    that `holds` a value and `_LEAST_SHARED` of the `asked` terms, the most weight of asked
    terms such a sentence holds, each weighed by how few of the paper's passages print it:
    in BERT's paper "BERT" weighs little and "activation" much."""
    held = {chunk: set(terms(text)) for chunk, text in passages}
    printing = Counter(t for words in held.values() for t in words & asked)
    weight = {t: math.log(1 + len(held) / n) for t, n in printing.items()}
    telling = asked - names  # "BERT" tells none of BERT's sentences apart
    scores: dict[str, float] = {}
    for chunk, text in passages:
        if len(telling & held[chunk]) < _LEAST_SHARED:
            continue
        for sentence in split_sentences(text):
            shared = asked.intersection(terms(sentence))
            score = sum(weight[t] for t in shared)
            if (
                len(shared & telling) >= _LEAST_SHARED
                and score > scores.get(chunk, 0.0)
                and holds(sentence)
            ):
                scores[chunk] = score
    return scores
