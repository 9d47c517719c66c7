"""The one name a question makes its subject by the possessive: "Which CNN architecture did
Adam's CIFAR-10 experiment use?" asks about Adam's paper; CIFAR-10 and CNN are what that
paper's experiment is about, and another paper's sentence on CIFAR-10 answers nothing.
A sentence of a paper that is not the subject's own and that never prints the subject
counts for little once the subject's own paper is among the sources.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from chat.rag.extractive.answer_type import mentions_entity, question_entities
from chat.rag.extractive.question import BYLINE
from chat.rag.extractive.sentences import Sentence

# "Adam's", "PaLM\u2019s": a name and its possessive, with either apostrophe.
_POSSESSIVE = re.compile(r"(?<![\w-])([^\s,;:!?()\"']+?)['\u2019]s\b")
# What a sentence keeps of its score when its paper is not the subject's and it does not
# print the subject.
_OFF_SUBJECT = 0.25


def possessive_subject(question: str) -> str:
    """The name `question` writes in the possessive ("Adam's"), when it writes exactly one
    that it asks about (a byline, "Rahman et al.'s", is none); "" otherwise."""
    plain = BYLINE.sub(" ", question)
    entities = set(question_entities(plain))
    owners = {m.group(1) for m in _POSSESSIVE.finditer(plain) if m.group(1) in entities}
    return next(iter(owners)) if len(owners) == 1 else ""


def subject_papers(subject: str, sentences: Sequence[Sentence], named: Collection[str]) -> set[str]:
    """The papers of `sentences` that are the subject's own: those of `named` (the papers
    the question's names are the own names of) that print the subject."""
    return {
        s.source.id for s in sentences if s.source.id in named and mentions_entity(s.text, subject)
    }


def on_subject(
    scores: Mapping[Sentence, float], question: str, named: Collection[str]
) -> dict[Sentence, float]:
    """`scores` with those of the sentences off the question's possessive subject lowered:
    from a paper other than the subject's own, not printing the subject. Unchanged when the
    question has no such subject or its own paper is not among the sentences."""
    subject = possessive_subject(question)
    own = subject_papers(subject, list(scores), named) if subject else set()
    if not own:
        return dict(scores)
    return {
        s: v if s.source.id in own or mentions_entity(s.text, subject) else v * _OFF_SUBJECT
        for s, v in scores.items()
    }
