"""A question asking what a named method is leads with the passage that says so.

"What is flash attention?" ranks FlashAttention's paper first, but by its
passages that print the name most (benchmarks, tables), not by the one that
presents it ("We propose FlashAttention, an IO-aware exact attention
algorithm ..."). For a definition question (`asked_term`) about a name the
question is about, the passage of a paper that introduces the name and
defines it there is put first, so the answer can open with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from chat.rag.extractive.sentences import split_sentences
from chat.rag.names.definitions import asked_term, defines
from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.fusion import Candidate
from ingest.index.filters import Filters
from ingest.index.name_catalog import fold

# Introducing papers looked through: a name a handful of papers introduce is contested.
_MOST_INTRODUCERS = 3

# (chunk id, text) of a paper's opening body passages (its abstract, then its text), in
# the order the paper reads.
Opening = Callable[[str], Sequence[tuple[str, str]]]


def asked_name(question: str, names: Recognised) -> NameMatch | None:
    """The name a definition question asks about, when it is recognised and a paper
    introduces it: "What does FiD stand for?", "what is flash attention"."""
    term = asked_term(question)
    if not term:
        return None
    wanted = fold(term)
    for match in names.matches:
        spellings = {fold(match.name), fold(match.asked), fold(match.apart)}
        if wanted in spellings and match.introducers:
            return match
    return None


def definition_first(
    question: str,
    ranked: Sequence[Candidate],
    names: Recognised,
    filters: Filters,
    opening: Opening,
) -> list[Candidate]:
    """`ranked` led by the first passage of an introducing paper (`opening`) that defines
    the name the question asks about (`asked_name`): raised above the first, or added
    there when fusion did not find it. Unchanged for any other question, or when no such
    passage is found within the caller's papers."""
    match = asked_name(question, names)
    if match is None or not ranked:
        return list(ranked)
    papers = [p for p in match.introducers if not filters.paper_ids or p in filters.paper_ids]
    spellings = [match.name, *match.long_forms]
    for paper in papers[:_MOST_INTRODUCERS]:
        for chunk, text in opening(paper):
            sentences = split_sentences(text)
            if any(defines(s, name).strength >= 2 for s in sentences for name in spellings):
                return _lead(ranked, Candidate(chunk, paper, 0.0))
    return list(ranked)


def _lead(ranked: Sequence[Candidate], leader: Candidate) -> list[Candidate]:
    """`ranked` with `leader` (or its own candidate, when ranked) first, scored above the
    first."""
    own = next((c for c in ranked if c.chunk_id == leader.chunk_id), leader)
    top = ranked[0].score
    if own is ranked[0]:
        return list(ranked)
    rest = [c for c in ranked if c.chunk_id != leader.chunk_id]
    return [replace(own, score=top + 1e-6), *rest]
