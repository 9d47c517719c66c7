"""A question about a named method gets the passages of its paper that say what it is.

"What is flash attention?" ranks FlashAttention's paper first, but by its
passages that print the name most (benchmarks, tables), not by the one that
presents it ("We propose FlashAttention, an IO-aware exact attention
algorithm ..."). For a definition question (`asked_term`) about a name the
question is about, the passage of a paper that introduces the name and
defines it there is put first, so the answer can open with it
(`definition_first`).

A question for a number ("How many summaries does Multi-LexSum contain?")
is often answered by the headline figures a paper gives in its abstract ("a
collection of 9,280 expert-authored summaries"), in words the rest of the
paper repeats too often for the search to single that passage out (DPR's
abstract never prints "DPR"). The opening passages of the paper the name
asked about is from, the first that prints a number and the name or words
of the question joins the passages for the answer, second
(`summary_beside`); for "how many", the first passage of that paper that
counts what is asked (`count_beside`); and the opening passage that
introduces a plain capitalised name ("the Transformer") no catalog name
matched, when the paper ranked first has one. A symbol defined only in an
algorithm box and asked for by its description's words gets the passage that
gives its value (`values_beside_notation`); one for a value of the one paper searched,
the table whose headers and row labels hold its words (`table_asked`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from chat.rag.extractive.answer_type import NUMBER, SCORE, AnswerType, answer_kind
from chat.rag.extractive.notation import asked_symbols, notation_stated
from chat.rag.extractive.scoring import counts
from chat.rag.extractive.sentences import split_sentences
from chat.rag.extractive.tables import labels_holding, may_answer
from chat.rag.names.definitions import asked_term, defines
from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.fusion import Candidate
from ingest.index.filters import Filters
from ingest.index.lexical.analysis import terms
from ingest.index.names.mining import fold
from ingest.index.records import Paper, chunk_place

# Introducing papers looked through: a name a handful of papers introduce is contested.
_MOST_INTRODUCERS = 3
# A paper's first passages looked through for its headline figures.
_SUMMARY_PASSAGES = 3
_DIGIT = re.compile(r"\d")
_TABLE_LABEL = re.compile(r"Table\b", re.IGNORECASE)
# The question's terms besides the name a passage of the summary shares at least.
_SHARED_TERMS = 2
_STEM_CHARS = 4  # a counted stem's first letters, looked for in a passage's text first

# (chunk id, text) of a paper's opening body passages (its abstract, then its text), in
# the order the paper reads.
Opening = Callable[[str], Sequence[tuple[str, str]]]


def asked_name(question: str, names: Recognised) -> NameMatch | None:
    """The name a definition question asks about, when it is recognised and a paper
    introduces it (or alone defines it): "What does FiD stand for?", "what is flash
    attention", "What is the Self-Taught Reasoner?"."""
    term = asked_term(question)
    if not term:
        return None
    wanted = fold(term)
    for match in names.matches:
        # The name, or its long form as the question writes it ("the Self-Taught Reasoner").
        spellings = {fold(match.name), fold(match.asked), fold(match.apart), fold(match.written)}
        if wanted in spellings and match.own_papers:
            return match
    return None


_SPELLED_OUT = 3  # the strength of a definition that gives the long form (`defines`)


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
    papers = [p for p in match.own_papers if not filters.paper_ids or p in filters.paper_ids]
    spellings = [match.name, *match.long_forms]
    for paper in papers[:_MOST_INTRODUCERS]:
        # Of one paper's opening passages, the first that spells the name out ("S2ORC,
        # the Semantic Scholar Open Research Corpus") before the first that says what it
        # is ("We introduce S2ORC, a large corpus of ...").
        found: dict[int, str] = {}
        for chunk, text in opening(paper):
            sentences = split_sentences(text)
            strength = max(
                (defines(s, name).strength for s in sentences for name in spellings), default=0
            )
            if strength >= 2:
                found.setdefault(strength, chunk)
            if strength >= _SPELLED_OUT:
                break
        if found:
            return _lead(ranked, Candidate(found[max(found)], paper, 0.0))
    return list(ranked)


def definition_in_scope(
    question: str, ranked: Sequence[Candidate], filters: Filters, passages: Opening
) -> list[Candidate]:
    """`ranked` led by the first passage, in reading order, of the one paper the search is
    scoped to (`passages`: all of its passages) that spells out the term the question asks
    about: "In the ZeRO paper, what does DP stand for?" reads "Basic data parallelism (DP)"
    from wherever the paper prints it. Unchanged for any other question, or when the paper
    spells the term out nowhere."""
    term = asked_term(question)
    if not term or len(filters.searched_papers) != 1 or not ranked:
        return list(ranked)
    (paper,) = filters.searched_papers
    for chunk, text in passages(paper):
        if term not in text:
            continue
        if any(defines(s, term).strength >= _SPELLED_OUT for s in split_sentences(text)):
            return _lead(ranked, Candidate(chunk, paper, 0.0))
    return list(ranked)


def summary_beside(
    question: str,
    chosen: Sequence[Candidate],
    names: Recognised,
    filters: Filters,
    opening: Opening,
) -> list[Candidate]:
    """`chosen` (the chunks for the answerer) with the first opening passage (`opening`:
    its abstract first) of the one paper a name of the question is from (`_the_paper_of`)
    that prints a number and the name (or a long form) or two of the question's other
    terms, placed second: one passage beyond the caps, so that no passage the search
    found gives way to it. Unchanged for a question that asks for no number, whose names
    are from no paper or several, or whose chunks hold that passage already."""
    if not chosen or AnswerType.parse(question).kind not in (NUMBER, SCORE):
        return list(chosen)
    introduced = {paper: m for m in names.matches if (paper := _the_paper_of(m))}
    if not introduced:
        return _introduction_beside(question, chosen, names, filters, opening)
    if len(introduced) != 1:
        return list(chosen)
    ((paper, match),) = introduced.items()
    if filters.searched_papers and paper not in filters.searched_papers:
        return list(chosen)
    spellings = [s.lower() for s in (match.name, match.asked, *match.long_forms) if s]
    asked = set(terms(question)) - set(terms(" ".join(spellings)))

    def answers(text: str) -> bool:
        about = any(s in text.lower() for s in spellings)
        return about or len(asked.intersection(terms(text))) >= _SHARED_TERMS

    summary = next(
        (
            chunk
            for chunk, text in opening(paper)[:_SUMMARY_PASSAGES]
            if _DIGIT.search(text) and answers(text)
        ),
        None,
    )
    if summary is None or summary in {c.chunk_id for c in chosen}:
        return list(chosen)
    below = chosen[0].score - 1e-6
    return [chosen[0], Candidate(summary, paper, below), *chosen[1:]]


def count_beside(
    question: str,
    chosen: Sequence[Candidate],
    names: Recognised,
    filters: Filters,
    passages: Opening,
) -> list[Candidate]:
    """`chosen` with, second, the first passage (in reading order, `passages`: all of a
    paper's) of the one paper a name of the question is the own name of (the one the
    search ranks first, of a name's several) that gives a number of what
    "how many" counts and holds two more of the question's terms ("How many tokens does
    the text of RETRO's training dataset total?": "The dataset consists of text documents
    ... totalling over 5 trillion tokens"), else those setting and defining the letter it
    counts them by (`notation_stated`): a paper states its sizes once, in words the rest of
    it repeats. Unchanged for any other question, or when the chunks hold them already."""
    answer = AnswerType.parse(question)
    ranked = list(dict.fromkeys(c.paper_id for c in chosen))
    # Of each name's own papers, the one the search ranks first: the reading it took.
    introduced = {
        next(p for p in ranked if p in m.own_papers)
        for m in names.matches
        if any(p in m.own_papers for p in ranked)
    }
    if not chosen or not answer.counted or len(introduced) != 1:
        return list(chosen)
    (paper,) = introduced
    if filters.searched_papers and paper not in filters.searched_papers:
        return list(chosen)
    asked = set(terms(question)) - answer.counted - set(terms(" ".join(answer.entities)))
    counted, held = [t[:_STEM_CHARS] for t in answer.counted], {c.chunk_id for c in chosen}
    for chunk, text in passages(paper):
        lower = text.lower()
        if not _DIGIT.search(text) or not any(c in lower for c in counted):
            continue
        for sentence in split_sentences(text):
            shared = len(asked.intersection(terms(sentence)))
            if shared >= _SHARED_TERMS and counts(sentence, answer.counted):
                if chunk in held:
                    return list(chosen)
                below = chosen[0].score - 1e-6
                return [chosen[0], Candidate(chunk, paper, below), *chosen[1:]]
    # Else where it sets the letter it counts them by: "BERT-large (L=24, H=1024, A=16)".
    found = notation_stated(" ".join(answer.counted), answer.entities, passages(paper))
    added = [Candidate(c, paper, chosen[0].score - 1e-6) for c in found if c not in held]
    return [chosen[0], *added, *chosen[1:]]


def _introduction_beside(
    question: str,
    chosen: Sequence[Candidate],
    names: Recognised,
    filters: Filters,
    opening: Opening,
) -> list[Candidate]:
    """`chosen` with, second, the opening passage of the paper ranked first that introduces
    a plain capitalised name of the question no catalog name matched ("the Transformer's
    feed-forward layers": "We propose a new simple network architecture, the Transformer,
    ..."), so that the answer reads that paper as the name's own; unchanged when the
    question has no such name or that paper's opening introduces none."""
    matched = {fold(w) for m in names.matches for w in (m.name, m.asked, m.written) if w}
    plain = [
        e for e in AnswerType.parse(question).entities if e[1:].islower() and fold(e) not in matched
    ]
    paper = chosen[0].paper_id
    if not plain or (filters.searched_papers and paper not in filters.searched_papers):
        return list(chosen)
    held = {c.chunk_id for c in chosen}
    for chunk, text in opening(paper)[:_SUMMARY_PASSAGES]:
        sentences = split_sentences(text)
        if any(defines(s, name).strength >= 2 for s in sentences for name in plain):
            if chunk in held:
                return list(chosen)
            below = chosen[0].score - 1e-6
            return [chosen[0], Candidate(chunk, paper, below), *chosen[1:]]
    return list(chosen)


def _the_paper_of(match: NameMatch) -> str:
    """The one paper a name is from: the one that introduces it, else, when none does, the
    one that defines it; "" when there are several."""
    papers = match.introducers or match.definers
    return papers[0] if len(papers) == 1 else ""


def _lead(ranked: Sequence[Candidate], leader: Candidate) -> list[Candidate]:
    """`ranked` with `leader` (or its own candidate, when ranked) first, scored above the
    first."""
    own = next((c for c in ranked if c.chunk_id == leader.chunk_id), leader)
    top = ranked[0].score
    if own is ranked[0]:
        return list(ranked)
    rest = [c for c in ranked if c.chunk_id != leader.chunk_id]
    return [replace(own, score=top + 1e-6), *rest]


@dataclass(frozen=True)
class Figure:
    """A caption or a table chunk of a PDF: where it is printed, and a caption's label."""

    chunk_id: str
    kind: str  # "caption" or "table"
    number: int  # its place in its paper
    page: int
    label: str  # a caption's section ("Table 4", "Figure 2"); "" for a table


# The text of each of the chunks named, by chunk id.
ChunkTexts = Callable[[Sequence[str]], Mapping[str, str]]


def values_beside_notation(
    question: str, chosen: Sequence[Candidate], texts: ChunkTexts, passages: Opening
) -> list[Candidate]:
    """`chosen` with, second, the first passage in reading order (`passages`: a paper's
    passages) of a paper whose algorithm box among `chosen` defines symbols by the words
    the question asks with (`notation.asked_symbols`: "default decay rates for the moment
    estimates" are Adam's β1 and β2), that gives all of them a value ("β1 = 0.9, β2 =
    0.999"): the box defines them, the prose gives their values, in words the question
    never uses. Unchanged when no chosen table defines such symbols, or no passage gives
    their values, or the chunks hold that passage already."""
    boxes = [c for c in chosen if (place := chunk_place(c.chunk_id)) and place[0] == "table"]
    if not boxes:
        return list(chosen)
    read = texts([c.chunk_id for c in boxes])
    for box in boxes:
        symbols = asked_symbols(question, [read.get(box.chunk_id, "")])
        if not symbols:
            continue
        valued = [re.compile(rf"(?<!\w){re.escape(s)}\s?=\s?[-\u2212]?\d") for s in symbols]
        found = next(
            (
                chunk
                for chunk, text in passages(box.paper_id)
                if all(v.search(text) for v in valued)
            ),
            None,
        )
        if found is None or found in {c.chunk_id for c in chosen}:
            return list(chosen)
        below = chosen[0].score - 1e-6
        return [chosen[0], Candidate(found, box.paper_id, below), *chosen[1:]]
    return list(chosen)


# A paper's captions and tables (`Figure`), in the order the paper reads.
Figures = Callable[[str], Sequence[Figure]]


def tables_beside_captions(
    question: str, chosen: Sequence[Candidate], figures: Figures
) -> list[Candidate]:
    """`chosen` with, after each caption of a table, that table's chunk, when the question
    asks for a number: "Table 4: Reptile hyper-parameters for the Mini-ImageNet
    comparison" is found by its words, the table's cells ("Outer iterations | 100K") that
    answer are not. A caption's table is the one of its page in the caption's place among
    the page's table captions, or, when the page has fewer tables than such captions
    (two tables read as one), the first after it, else the last before it. Only among
    passages of several papers, each capped to a few: passages all of one paper (one side
    of a comparison, a paper the question names) had room for its tables already."""
    if answer_kind(question) not in (NUMBER, SCORE) or len({c.paper_id for c in chosen}) < 2:
        return list(chosen)
    held = {c.chunk_id for c in chosen}
    read: dict[str, Sequence[Figure]] = {}
    found: list[Candidate] = []
    for candidate in chosen:
        found.append(candidate)
        place = chunk_place(candidate.chunk_id)
        if place is None or place[0] != "caption":
            continue
        paper = candidate.paper_id
        if paper not in read:
            read[paper] = figures(paper)
        table = _table_of(candidate.chunk_id, read[paper])
        if table is not None and table not in held:
            held.add(table)
            found.append(replace(candidate, chunk_id=table))
    return found


def table_asked(
    question: str, chosen: Sequence[Candidate], paper: Paper, figures: Figures, texts: ChunkTexts
) -> list[Candidate]:
    """`chosen` with, second, the table of `paper` whose headers and row labels hold most of
    the question's words (`labels_holding`, then its caption's), for a value: "how many
    layers ... its 3B model" is the row "3 B | 32 | 2560" under "Layers | Model Dimension",
    too far from the question's words for the search. Its title's words are not sought: a
    row naming the paper itself ("PaLM 540B") tells no table apart."""
    answer = AnswerType.parse(question)
    if not chosen or answer.kind not in (NUMBER, SCORE):
        return list(chosen)
    wanted = frozenset(t for t in terms(question) if not t.isdigit()) - set(terms(paper.title))
    read = figures(paper.id)
    captions = {_table_of(f.chunk_id, read): f.chunk_id for f in read if f.kind == "caption"}
    tables = [f.chunk_id for f in read if f.kind == "table"]
    found = texts([*tables, *(c for t, c in captions.items() if t)])
    best, most = "", 0
    for chunk in tables:
        header, labels = labels_holding(wanted, found.get(chunk, ""))
        # The caption tells tables of like rows and columns apart ("nDCG@10").
        told = len(wanted.intersection(terms(found.get(captions.get(chunk, ""), ""))))
        fits = may_answer(question, answer.setting, found.get(chunk, ""))
        if header and labels and fits and header + labels + told > most:
            best, most = chunk, header + labels + told
    if not best or best in {c.chunk_id for c in chosen[:2]}:
        return list(chosen)
    rest = [c for c in chosen if c.chunk_id != best]
    return [rest[0], Candidate(best, paper.id, rest[0].score), *rest[1:]]


def _table_of(caption_id: str, figures: Sequence[Figure]) -> str | None:
    caption = next((f for f in figures if f.chunk_id == caption_id), None)
    if caption is None or not _TABLE_LABEL.match(caption.label):
        return None
    page = [f for f in figures if f.page == caption.page]
    captions = [f for f in page if f.kind == "caption" and _TABLE_LABEL.match(f.label)]
    tables = [f for f in page if f.kind == "table"]
    if not tables:
        return None
    if len(tables) == len(captions):
        return tables[captions.index(caption)].chunk_id
    after = [t for t in tables if t.number > caption.number]
    return (after[0] if after else tables[-1]).chunk_id
