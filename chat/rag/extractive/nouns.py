"""The noun a question asks a name of: "Which base language model does STaR fine-tune?"
asks the name of a model, "What is the detector proposed in Zhu et al.'s paper called?"
the name of a detector. A sentence that prints a name beside that noun answers it.

A question that writes what it asks about in the possessive ("What is PaLM's vocabulary
size?") asks what "What is the vocabulary size of PaLM?" asks: a value, not what PaLM is.
"""

from __future__ import annotations

import re

from chat.rag.extractive.question import frame_weight
from ingest.index.lexical.analysis import terms

# "which reinforcement learning algorithm is it ...": the words up to its verb.
_ASKED_NOUN = re.compile(r"\b(?:which|what)\s+((?:[\w-]+\s+){0,4})", re.IGNORECASE)
# "What is the detector ... called?", "What is the name of the optimizer ...?": the noun
# after "what is the" when the question asks what it is called, not what it is.
_CALLED = re.compile(r"\b(?:called|named)\W*$|\bnames? of\b", re.IGNORECASE)
_WHAT_IS_THE = re.compile(
    r"\bwhat\s+(?:is|are|was|were)\s+the\s+(?:names?\s+of\s+(?:the|its|their)\s+)?"
    r"((?:[\w-]+\s+){0,4})",
    re.IGNORECASE,
)
# The words that end the noun: verbs, prepositions, the subject of a clause after it.
# "What is PaLM's vocabulary size?": the verb, the owner and the noun phrase after it.
_POSSESSED = re.compile(
    r"^(?P<ask>\s*what(?:'s|\s+(?:is|are|was|were)))\s+(?P<owner>(?!the\b)[^\s?]+?)"
    r"['\u2019]s\s+(?P<noun>[^?]+?)\s*(?P<end>\?.*)?$",
    re.IGNORECASE,
)
# "What activation does BERT use?": a name asked for by its noun, as "which" asks it.
_WHAT_NOUN_DOES = re.compile(r"^\s*what\s+(?:[\w-]+\s+){1,3}?(?:do|does|did)\b", re.I)
_WHICH = re.compile(r"\bwhich\b", re.IGNORECASE)
_VERBS = frozenset(
    ["is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could",
     "would", "will", "should", "of", "in", "on", "for", "to", "from", "by", "with", "per",
     "at", "about", "into", "between", "among", "that", "uses", "use",
     # a relative clause after the noun: "the optimizer they train with"
     "they", "we", "it", "he", "she", "you"]
)  # fmt: skip


def asked_noun(question: str) -> frozenset[str]:
    """The terms of the noun a "which ..." or "what ..." question asks a name of: the last
    of the few words after it, before its verb or a preposition ("Which base language model
    does STaR fine-tune?": "model"; "What is the detector proposed in ... called?":
    "detector"); none when it has no such words, or when the noun frames the question
    ("Which paper introduced ...?")."""
    called = _WHAT_IS_THE.search(question) if _CALLED.search(question) else None
    match = called or _ASKED_NOUN.search(question)
    head: list[str] = []
    for word in match.group(1).split() if match else ():
        # "Which paper introduced": a word in "-ed" after the noun is its verb; before it
        # ("Which compressed index"), a word of the noun's.
        if word.lower() in _VERBS or (head and word.lower().endswith("ed")):
            break
        head.append(word)
    noun = frozenset(terms(head[-1])) if head else frozenset()
    return frozenset() if any(frame_weight(t) < 1 for t in noun) else noun


def of_form(question: str) -> str:
    """`question` with a possessive after "what is" written as "the ... of": "What is PaLM's
    vocabulary size?" reads "What is the vocabulary size of PaLM?"; any other unchanged."""
    match = _POSSESSED.match(question)
    if match is None:
        return question
    ask = "What is" if match["ask"].lower().endswith("'s") else match["ask"].strip()
    return f"{ask} the {match['noun']} of {match['owner']}{match['end'] or '?'}"


def asks_which(question: str) -> bool:
    """Whether `question` asks which thing of a kind: "which ...", or "what <noun> does
    ...?" ("What activation does BERT use?")."""
    return _WHICH.search(question) is not None or _WHAT_NOUN_DOES.search(question) is not None
