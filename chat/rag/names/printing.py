"""How the papers print a question's words: as words, or as a name.

A question in lower case says nothing of case: "fid" may be FiD or FID,
"eval" the word or the data set one paper calls EVAL. Words typed apart may
be one name printed joined: "flash attention" is FlashAttention, "graph rag"
GraphRAG, while "data set" is two words even where one paper calls itself
"DataSet". Which reading is right is read from the papers themselves: the
passages BM25 finds best for the words, and how many papers print them each
way (`chat/rag/names/recognition.py` decides with these counts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ingest.index.lexical.analysis import STOP_WORDS
from ingest.index.names.mining import tokens

# (paper id, text) of the passages BM25 finds best for a query.
Passages = Callable[[str], Sequence[tuple[str, str]]]

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# The parts of a name printed joined: "FlashAttention" -> Flash, Attention; "GraphRAG" ->
# Graph, RAG; "ResNet50" -> Res, Net, 50.
_PART_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# Words typed apart that may be one name: two or three.
_MOST_APART = 3


def printings_in(word: str, passages: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """How (paper id, text) `passages` print `word` or its plural: each printed form, case
    kept, with the papers that print it. A form inside a longer name ("MT-Eval") is that
    name's, not the word's."""
    wanted = {word.lower(), f"{word.lower()}s", word.lower().removesuffix("s")}
    found: dict[str, set[str]] = {}
    for paper_id, text in passages:
        for token in set(tokens(text)):
            if token.lower() in wanted:
                found.setdefault(token, set()).add(paper_id)
    return {form: frozenset(papers) for form, papers in found.items()}


@dataclass(frozen=True)
class Apart:
    """Words of a question typed apart (or hyphenated) that may be one joined name."""

    written: str  # as the question writes them: "flash attention", "Flash-Attention"
    words: tuple[str, ...]

    @property
    def joined(self) -> str:
        """The lookup key of the name they would make: "flashattention"."""
        return "".join(self.words).lower()


def typed_apart(question: str) -> list[Apart]:
    """Every run of two or three words of `question` joined by one space or hyphen, none
    of them a stop word ("in a" is no name, though a paper may call itself InA)."""
    found = list(_WORD_RE.finditer(question))
    runs = []
    for start in range(len(found)):
        for end in range(start + 1, min(start + _MOST_APART, len(found))):
            between = question[found[end - 1].end() : found[end].start()]
            if between not in (" ", "-"):
                break
            if any(m.group().lower() in STOP_WORDS for m in found[start : end + 1]):
                break
            words = tuple(m.group() for m in found[start : end + 1])
            runs.append(Apart(question[found[start].start() : found[end].end()], words))
    return runs


def name_parts(name: str) -> tuple[str, ...]:
    """The parts a joined name is printed with, in lower case; () for a name that is not
    joined from parts (one part, or hyphens, spaces and other marks in it)."""
    if not name.isalnum():
        return ()
    parts = tuple(p.lower() for p in _PART_RE.findall(name))
    return parts if len(parts) >= 2 and "".join(parts) == name.lower() else ()


def spells(apart: Apart, name: str) -> bool:
    """Whether the words typed apart are the name's parts: "flash attention" spells
    FlashAttention; "fla shattention" does not."""
    return name_parts(name) == tuple(w.lower() for w in apart.words)


def apart_printings(
    apart: Apart, name: str, passages: Iterable[tuple[str, str]]
) -> tuple[frozenset[str], frozenset[str]]:
    """The papers of `passages` that print the words apart ("flash attention", "Flash
    Attention", "flash-attention"), and those that print the name joined (or its
    plural)."""
    pattern = r"[\s-]+".join(re.escape(w) for w in apart.words)
    # What comes before the first word is looked at behind it, once it is found: a search
    # that starts with a word's letters runs several times faster.
    first = re.escape(apart.words[0])
    after = pattern.removeprefix(first)
    as_words = re.compile(rf"{first}(?<![\w-]{first}){after}s?(?![\w-])", re.IGNORECASE)
    as_name = re.compile(rf"(?<![\w-]){re.escape(name)}s?(?![\w-])")
    words, joined = set(), set()
    for paper_id, text in passages:
        if as_words.search(text):
            words.add(paper_id)
        if name in text and as_name.search(text):  # most passages lack it: no search
            joined.add(paper_id)
    return frozenset(words), frozenset(joined)
