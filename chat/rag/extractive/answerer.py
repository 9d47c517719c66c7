"""Answers without a language model: the source sentences that best answer the question.

Every sentence of an extractive answer is quoted from a source (its paper's
own reference numbers such as "[12]" left out, so that they are not read as
citations of the sources); only the citations, the whitespace between
sentences and, when the sources cover just part of the question, one lead
line saying so are added. A question that asks what a name means gets the
sentence that defines it first. A question that asks for a kind of answer (a
number, a score, a dataset, a model, a person, a date: `answer_type.py`) about
an entity gets first the sentence that gives such a value for that entity; a
question for a number also gets the table cell under the row and column it
names ("Fusion-in-Decoder (large) · TriviaQA EM · 67.6", `tables.py`), quoted
with its table's label: numbers are often printed only there. Papers that do
not carry the answer are left out, and the answer never opens with a footnote
(`shaping.py`). `ExtractiveGenerator` is this as the answerer's
`AnswerGenerator` (`chat/rag/answer/generators.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from dataclasses import dataclass

from chat.rag.answer.generators import NOT_FOUND
from chat.rag.answer.llm import LlmChunk
from chat.rag.answer.prompts import Turn
from chat.rag.answer.sampling import Sampling, TokenCount
from chat.rag.extractive.answer_type import (
    NUMBER,
    SCORE,
    AnswerType,
    favour_typed,
    question_entities,
)
from chat.rag.extractive.notation import with_boxed_symbols, with_symbols
from chat.rag.extractive.ordinals import ordinal_of, resolved
from chat.rag.extractive.question import FOLLOW_UP, QuestionTerms
from chat.rag.extractive.scoring import repeats, score_sentences, select_sentences
from chat.rag.extractive.sentences import Sentence, defining_pieces, source_sentences
from chat.rag.extractive.shaping import answering_papers, well_opened, without_repeats
from chat.rag.extractive.subject import on_subject
from chat.rag.extractive.tables import best_cells, entity_row, table_rows
from chat.rag.names.definitions import asked_term, defines, is_name
from chat.rag.names.matches import Recognised
from chat.rag.records.answers import record_answer
from chat.rag.sources import Source
from ingest.index.lexical.analysis import terms as terms_of
from ingest.index.records import chunk_place

_PER_SOURCE = 2
# A table row joins the answer when it holds this share of the question's content terms
# that the best chosen sentence holds.
_ROW_SHARE = 0.5
_LONG_FORM = 3  # the strength of a definition that gives a long form (`defines`)
_STANDS_ALONE = 6  # words from which a question with no word pointing back stands alone


@dataclass(frozen=True)
class ExtractiveAnswer:
    """The chosen sentences in reading order, and the lead line ("" when none is due)."""

    lead: str
    sentences: tuple[Sentence, ...]

    def pieces(self) -> list[str]:
        """What to stream: the lead line, then one piece per sentence with its citation;
        sentences of one paper form a paragraph."""
        pieces = [f"{self.lead}\n\n"] if self.lead and self.sentences else []
        for index, sentence in enumerate(self.sentences):
            following = self.sentences[index + 1] if index + 1 < len(self.sentences) else None
            if following is None:
                gap = ""
            elif following.source.id == sentence.source.id:
                gap = " "
            else:
                gap = "\n\n"
            pieces.append(f"{quoted_text(sentence)} {sentence.source.citation}{gap}")
        return pieces


def quoted_text(sentence: Sentence) -> str:
    """A sentence as quoted; a table's row after its table's label and header."""
    if not sentence.is_row:
        return sentence.text
    label = sentence.source.section or "Table"
    header = f" ({sentence.header})" if sentence.header else ""
    return f"{label}{header}: {sentence.text}"


def _reading_order(chosen: Sequence[Sentence], scores: dict[Sentence, float]) -> list[Sentence]:
    """The best sentence first, the rest of its paper after it in the paper's order, then
    the other papers by their best sentence, each in its own order (abstract first)."""
    if not chosen:
        return []
    lead = chosen[0]
    best: dict[str, float] = {}
    for s in chosen:
        best[s.source.id] = max(best.get(s.source.id, 0.0), scores.get(s, 0.0))
    best[lead.source.id] = float("inf")

    def key(s: Sentence) -> tuple[float, bool, int, int, int, int]:
        page = -1 if s.source.kind == "abstract" else (s.source.page or 0)
        return (-best[s.source.id], s is not lead, page, _chunk_number(s), s.rank, s.position)

    return sorted(chosen, key=key)


def _chunk_number(sentence: Sentence) -> int:
    """The chunk's place in its paper, read from its id (`paper#kind-N@digest`)."""
    place = chunk_place(sentence.source.chunk_id)
    return place[1] if place else sentence.rank


def _with_definition_first(
    term: str,
    sentences: Sequence[Sentence],
    chosen: list[Sentence],
    scores: dict[Sentence, float],
    *,
    long_form: bool = False,
) -> tuple[list[Sentence], bool]:
    """`chosen` led by the sentence that best defines `term` (added when not chosen;
    with `long_form`, only one that gives its long form), and whether there was one."""
    if not term:
        return chosen, False
    strengths = {s: defines(s.text, term).strength for s in sentences}
    least = _LONG_FORM if long_form else 1
    defining = [s for s in sentences if strengths[s] >= least]
    if not defining:
        return chosen, False
    # Of equal definitions, the best-ranked source's: retrieval puts the paper that
    # introduces the name first (`leading.definition_first`), not a later one using it.
    definition = max(
        defining, key=lambda s: (strengths[s], not s.is_title, -s.rank, scores.get(s, 0.0))
    )
    rest = [s for s in chosen if s != definition and not repeats(s, definition)]
    return [definition, *rest][: max(len(chosen), 1)], True


def _with_name_defined_first(names: Sequence[str], chosen: list[Sentence]) -> list[Sentence]:
    """`chosen` led by its first sentence that says what a name of the question is, if
    any: a question about a named method reads best after what the method is."""
    defining = [s for s in chosen if any(defines(s.text, name).strength for name in names)]
    if not defining:
        return chosen
    return [defining[0], *(s for s in chosen if s is not defining[0])]


def compose(
    question: str,
    sources: Sequence[Source],
    *,
    max_sentences: int = 4,
    named: Collection[str] = (),
) -> ExtractiveAnswer:
    """The extractive answer to `question` from `sources` (ordered best first); no
    sentences when none shares a content term with the question. `named`: the papers
    the question's names are the own names of (`named_papers`), whose every sentence is
    about what it names."""
    sentences = [s for rank, src in enumerate(sources) for s in source_sentences(src, rank)]
    # Symbols an algorithm box defines by the question's words are asked for too.
    question = with_boxed_symbols(question, [s.text for s in sources if s.kind == "table"])
    query = QuestionTerms.parse(question)
    texts = [s.text for s in sources]
    answer = AnswerType.parse(question).in_sources(sentences, texts, named)
    found = query.sentence_terms(sentences)
    scores = score_sentences(
        query, found, lambda scores: on_subject(favour_typed(scores, answer), question, named)
    )
    body = [s for s in sentences if not s.is_title]
    if any(scores[s] > 0 for s in body):
        scores = {s: scores[s] for s in body}
    distinct = len({src.chunk_id for src in sources})
    per_source = _PER_SOURCE if distinct >= 3 else max_sentences
    chosen = select_sentences(query, scores, found, max_sentences, per_source)
    # A question for a number, a name or a date asks for no definition.
    term = "" if answer.wants_value else asked_term(question)
    candidates = [s for s in sentences if s in scores or s.is_title]
    chosen, defined = _with_definition_first(term, candidates, chosen, scores)
    if term and not defined:
        # A long form printed only in a caption or a long sentence still answers.
        pieces = [p for rank, src in enumerate(sources) for p in defining_pieces(src, rank)]
        chosen, defined = _with_definition_first(term, pieces, chosen, scores, long_form=True)
        found = {**found, **query.sentence_terms(chosen[:1])}
    if not term and chosen and not answer.wants_value:
        chosen = _with_name_defined_first(list(query.names.values()), chosen)
        defined = chosen[0] is not max(chosen, key=lambda s: scores.get(s, 0.0))
    ordered = [chosen[0], *_reading_order(chosen[1:], scores)] if defined else []
    ordered = ordered or _reading_order(chosen, scores)
    ordered = without_repeats(well_opened(answering_papers(ordered, answer, query, found)))
    held: Mapping[Sentence, tuple[str, ...]] = found
    if query.wants_number or answer.kind in (NUMBER, SCORE):
        ordered, held = _with_table_answer(query, answer, sources, found, ordered, defined)
    lead = query.lead_line(ordered, held, term if term and not defined else "")
    return ExtractiveAnswer(lead, tuple(ordered))


def _with_table_answer(
    query: QuestionTerms,
    answer: AnswerType,
    sources: Sequence[Source],
    found: Mapping[Sentence, tuple[str, ...]],
    ordered: list[Sentence],
    defined: bool,
) -> tuple[list[Sentence], Mapping[Sentence, tuple[str, ...]]]:
    """`ordered` with the table cell or row that answers, at the head of its paper's
    sentences (after a definition that leads), and `found` with its terms."""
    row = best_cells(query, answer, sources) or _best_row(query, sources, found, ordered)
    # A row of scores read without its header answers only a question for a score: "how
    # many passages" is stated in a sentence, not in the row of FiD's exact matches.
    row = row or (entity_row(answer, sources) if answer.kind == SCORE else None)
    if row is None:
        return ordered, found
    own = [i for i, s in enumerate(ordered) if s.source.id == row.source.id]
    at = own[0] if own else len(ordered)
    ordered = list(ordered)
    ordered.insert(max(at, 1) if defined else at, row)
    held = {**found, row: query.sentence_terms([row])[row]}
    if not (answer.entities and answer.about(row)):
        return ordered, held
    # A row of the entity asked about ("ViT-Huge · Params · 632M") answers before the
    # papers that never name it, which are left out.
    ordered = answering_papers(ordered, answer, query, held)
    if not defined and not answer.about(ordered[0]):
        ordered = [row, *(s for s in ordered if s is not row)]
    return ordered, held


def _best_row(
    query: QuestionTerms,
    sources: Sequence[Source],
    found: Mapping[Sentence, tuple[str, ...]],
    chosen: Sequence[Sentence],
) -> Sentence | None:
    """The table row of `sources` that best answers a question asking for a number:
    the best scored of the rows that themselves hold a content term of the question,
    when it (with its header) holds at least `_ROW_SHARE` as many of the question's
    content terms as the best of the `chosen` sentences (`found`: their terms)."""
    rows = [r for rank, src in enumerate(sources) for r in table_rows(src, rank)]
    if not rows:
        return None
    held = query.sentence_terms(rows)
    own = [r for r in rows if query.content.intersection(terms_of(r.text))]
    if not own:
        return None
    scores = score_sentences(query, {r: held[r] for r in own})
    best = max(own, key=lambda r: scores[r])
    content = query.content
    most = max((len(content.intersection(found[s])) for s in chosen if s in found), default=0)
    return best if len(content.intersection(held[best])) >= _ROW_SHARE * most else None


def named_papers(names: Recognised, sources: Sequence[Source]) -> frozenset[str]:
    """The papers of `sources` that names recognised in the question (`names`) are the own
    names of: of each name, the one of its own papers the sources rank first, the reading
    retrieval took ("ViT" is introduced by dozens of papers; the question meant one). Only
    a name written as a name counts, not words that spell out a long form in lower case
    ("a neural network" is no paper's NN); and none when the sources are of one paper,
    which needs telling from no other."""
    ranked = list(dict.fromkeys(s.id for s in sources))
    if len(ranked) < 2:
        return frozenset()
    chosen = set()
    for match in names.matches:
        written = match.written or match.apart or match.asked
        if written[:1].islower():
            continue
        own = [p for p in ranked if p in match.own_papers]
        if own:
            chosen.add(own[0])
    return frozenset(chosen)


def extract_answer(
    question: str,
    sources: Sequence[Source],
    *,
    max_sentences: int = 4,
    named: Collection[str] = (),
) -> list[str]:
    """The pieces of the extractive answer to stream, in order (`compose`); empty when
    no sentence shares a content term with the question."""
    if record := record_answer(question, sources):
        return record
    return compose(question, sources, max_sentences=max_sentences, named=named).pieces()


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
        """When this question leans on the previous one: it with the names the previous one
        asked about ("and how big is its database? RETRO"), or with its words when it named
        nothing. Its words would find again what it asked ("What is RETRO?" leads with what
        defines RETRO), the names find what this one asks of them."""
        previous = [t.content for t in history if t.role == "user"]
        if not previous or not _leans(question):
            return question
        # "what does the second one do?" after "What agents does PaSa consist of?" asks
        # of the agent the previous answer lists second.
        question = resolved(question, previous[-1], _answers(history)[-1:])
        if not question_entities(previous[-1]):
            return f"{previous[-1]} {question}"
        return _with_previous_names(question, history)

    async def generate(
        self,
        question: str,
        sources: Sequence[Source],
        history: Sequence[Turn],
        sampling: Sampling | None = None,
        named: Collection[str] = (),
    ) -> AsyncIterator[LlmChunk]:
        """The answer quoted from `sources`; `named`: the papers the question's recognised
        names are the own names of (`named_papers`)."""
        # "its default learning rate" after "What is the Adam optimizer?" asks for Adam's.
        # Only a word that points back does: a short question of its own ("sourdough rye")
        # is not about what was asked before.
        points_back = FOLLOW_UP.search(question) or ordinal_of(question)
        # Sources all of one paper are about what was asked before already: a name of
        # several words ("Dense Passage Retriever") would only favour the sentences that
        # repeat its words over those that answer; a name alone ("Adam", "DPR") still tells
        # the paper's own method from another it presents (AdaMax).
        one_paper = len({s.id for s in sources}) == 1
        asked = _with_previous_names(question, history, one_paper) if points_back else question
        if ordinal_of(question) is not None:
            previous = [t.content for t in history if t.role == "user"]
            texts = [*_answers(history)[-1:], *(s.text for s in sources)]
            asked = resolved(asked, previous[-1] if previous else "", texts)
        asked = with_symbols(asked)
        # Reading every source's sentences takes milliseconds of CPU: not on the event loop,
        # where every other stream waits for it.
        pieces = await asyncio.to_thread(extract_answer, asked, sources, named=named)
        async for chunk in self.quote(pieces or [NOT_FOUND], sampling):
            yield chunk

    async def quote(
        self, pieces: Sequence[str], sampling: Sampling | None = None
    ) -> AsyncIterator[LlmChunk]:
        """`pieces` streamed as the answer, ended where `sampling` asks."""
        finish = "stop"
        if sampling is not None:
            kept, finish = sampling.limit("".join(pieces), self.count_tokens)
            pieces = _first_chars(pieces, len(kept))
        for piece in pieces:
            yield LlmChunk(text=piece)
        yield LlmChunk(finish_reason=finish)

    async def aclose(self) -> None:
        """Nothing to release."""


def _leans(question: str) -> bool:
    """Whether a question leans on the one before it: a word that points back, a place
    among what it asked ("the second one", `ordinals`), or so short that it cannot stand
    alone."""
    return (
        bool(FOLLOW_UP.search(question))
        or ordinal_of(question) is not None
        or len(question.split()) < _STANDS_ALONE
    )


def _answers(history: Sequence[Turn]) -> list[str]:
    """The answers of `history`, oldest first."""
    return [t.content for t in history if t.role == "assistant"]


def _with_previous_names(question: str, history: Sequence[Turn], names_alone: bool = False) -> str:
    """`question` with the names the previous question asked about that it lacks; with
    `names_alone`, not the capitalised words of a name of several ("Dense Passage
    Retriever"), only acronyms and mixed-case names among them."""
    previous = [t.content for t in history if t.role == "user"]
    names = question_entities(previous[-1]) if previous else ()
    if names_alone and len(names) > 1:
        names = tuple(n for n in names if is_name(n))
    return " ".join([question, *(n for n in names if n not in question)])


def _first_chars(pieces: Sequence[str], length: int) -> list[str]:
    """The pieces that make up the first `length` characters of their text, the last cut."""
    kept: list[str] = []
    for piece in pieces:
        if length <= 0:
            break
        kept.append(piece[:length])
        length -= len(piece)
    return [p for p in kept if p]
