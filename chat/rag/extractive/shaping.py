"""The chosen sentences made into an answer: it opens with a sentence that reads as one,
says each thing once, and cites only the papers that carry the answer.

A footnote ("5However, ..."), a running head or a sentence that starts with a
footnote mark never opens an answer. Two sentences with nearly the same terms,
or one whose terms nearly all are in the other's, are one. A paper whose
sentences print none of the entities asked about, or no answer of the asked
kind, or far fewer of the question's terms, is dropped when another paper does
better: it would only pad the answer with a citation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from chat.rag.extractive.answer_type import LONG_FORM, AnswerType
from chat.rag.extractive.question import QuestionTerms
from chat.rag.extractive.scoring import repeats
from chat.rag.extractive.sentences import Sentence

# A footnote's number glued to its text ("5However"), a section number before its first
# words ("3 We primarily"), or a footnote's symbol.
_FOOTNOTE_MARK = re.compile(
    r"^\d{1,2}(?=[A-Z][a-z])|^\d{1,2}\s+(?=[A-Z][a-z]+\s)|^[*\u2020\u2021\u00a7\u00b6]"
)
_RUNNING_HEAD = re.compile(
    r"^(?:Published as a (?:conference )?paper|Under review|Preprint|Accepted (?:at|to)|"
    r"Work in progress)\b|\barXiv(?::\s?\d|\s+preprint\b)",
    re.IGNORECASE,
)
_FOOTNOTE_KINDS = frozenset(["footnote", "header", "footer"])
# A paper is kept when it holds at least this share of the question's terms that the
# paper holding the most holds.
_TERM_SHARE = 0.5


def opens_well(sentence: Sentence) -> bool:
    """Whether an answer may open with `sentence`: not a footnote, running head or a
    sentence that starts with a footnote mark."""
    return not (
        sentence.source.kind in _FOOTNOTE_KINDS
        or _FOOTNOTE_MARK.match(sentence.text)
        or _RUNNING_HEAD.search(sentence.text)
    )


def well_opened(ordered: Sequence[Sentence]) -> list[Sentence]:
    """`ordered` with its first sentence that opens well first (unchanged when none)."""
    first = next((s for s in ordered if opens_well(s)), None)
    if first is None or first is ordered[0]:
        return list(ordered)
    return [first, *(s for s in ordered if s is not first)]


def without_repeats(ordered: Sequence[Sentence]) -> list[Sentence]:
    """`ordered` without the sentences that repeat an earlier one (`repeats`)."""
    kept: list[Sentence] = []
    for sentence in ordered:
        same = any(s.text == sentence.text or repeats(s, sentence) for s in kept)
        if sentence.is_row or not same:
            kept.append(sentence)
    return kept


def answering_papers(
    ordered: Sequence[Sentence],
    answer: AnswerType,
    query: QuestionTerms,
    found: Mapping[Sentence, tuple[str, ...]],
) -> list[Sentence]:
    """`ordered` without the papers that do not carry the answer when another does: for
    a question for a long form, those that do not print it; then those that print no
    entity asked about, then no answer of the asked kind, then fewer
    than `_TERM_SHARE` of the most question terms a paper holds (unless it defines an
    entity asked about)."""
    papers: dict[str, list[Sentence]] = {}
    for sentence in ordered:
        papers.setdefault(sentence.source.id, []).append(sentence)
    if len(papers) < 2:
        return list(ordered)
    kept = list(papers)
    if answer.kind == LONG_FORM:
        # What an acronym stands for is said by the papers that print its long form.
        kept = _where(kept, lambda p: any(_gives_long_form(s, answer) for s in papers[p]))
    if answer.entities:
        kept = _where(kept, lambda p: any(answer.about(s) for s in papers[p]))
    if answer.wants_value:
        kept = _where(kept, lambda p: any(answer.holds(s.text) for s in papers[p]))
    held = {p: len(query.content.intersection(_terms(papers[p], found))) for p in kept}
    most = max(held.values(), default=0)
    # A paper that defines the entity may call it by its long form or "our model".
    kept = _where(kept, lambda p: held[p] >= _TERM_SHARE * most or p in answer.own_papers)
    return [s for s in ordered if s.source.id in kept]


def _gives_long_form(sentence: Sentence, answer: AnswerType) -> bool:
    text = sentence.text.lower()
    return any(form.lower() in text for form in answer.long_forms)


def _terms(sentences: Sequence[Sentence], found: Mapping[Sentence, tuple[str, ...]]) -> set[str]:
    return {t for s in sentences for t in found.get(s, s.terms)}


def _where(papers: list[str], carries: Callable[[str], bool]) -> list[str]:
    """The papers that carry the answer, or all of them when none does."""
    chosen = [p for p in papers if carries(p)]
    return chosen or papers
