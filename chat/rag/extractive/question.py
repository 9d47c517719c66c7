"""What an extractive answer needs to know about the question: its terms and their weights,
the names in it whose case carries meaning, and how much of it an answer covers.

"ZeRO" in a question is a name, not the word "zero": a sentence holds it only
where it is printed in that case (or its long form, where a source gives one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from chat.rag.extractive.notation import printed_symbol
from chat.rag.extractive.sentences import Sentence
from chat.rag.extractive.word_forms import families_of, family_terms, with_family_terms
from chat.rag.names.definitions import find_name, is_name, long_form_of
from chat.rag.names.printing import typed_apart
from ingest.index.lexical.analysis import terms, words

# Words by which a question leans on an earlier one.
FOLLOW_UP = re.compile(
    r"\b(it|its|they|them|their|this|that|these|those|he|she|the paper|the method|"
    r"the model|the authors?|above|previous|same)\b",
    re.IGNORECASE,
)
# Words a question uses to frame what it asks for rather than what it is about (stems).
_FRAME_TERMS = frozenset(
    [
        "paper",
        "propos",
        "method",
        "approach",
        "work",
        "studi",
        "present",
        "introduc",
        "describ",
        "rememb",
        "recal",
        "call",
        "name",
        "one",
        "know",
        "articl",
        "author",
        "research",
        "idea",
        "techniqu",
        "show",
        "stand",
        "mean",
        "defin",
        "definit",
        "explain",
        "problem",
        "solv",
        "result",
        "purpos",
        "goal",
        "main",
        "key",
        "role",
        "benefit",
        "advantag",
        "help",
    ]
)
# Words that ask how, how much or in what way, which sources rarely print as the question
# does: they count for scoring, but an answer without them still answers (stems).
_ASKING_TERMS = frozenset(
    [
        "mani",
        "much",
        "chang",
        "differ",
        "compar",
        "affect",
        "improv",
        "achiev",
        "perform",
        "handl",
        "deal",
        "happen",
        "need",
        "tell",
        "effect",
        "impact",
        "matter",
        "kind",
        "type",
        "exampl",
        "specif",
        "detail",
        "exact",
        "actual",
        "typic",
        "usual",
        "like",
        "relat",
        "caus",
        "reason",
        "possibl",
        "exist",
        "common",
        "new",
        "get",
        "good",
        "better",
        "best",
        "well",
        "anyon",
        "someon",
        "someth",
        "everi",
        "realli",
        "done",
        "look",
        "want",
        "find",
        "tri",
        "whose",
        "report",
    ]
)
# Common verbs that count for scoring but alone do not make a sentence relevant (stems).
_GENERIC_TERMS = frozenset(["use", "make", "get", "give", "way", "thing"])
_ASKS_FOR_NUMBER = re.compile(
    r"\bhow (?:many|much|large|big|long|fast|often|far|small|high|low|well)\b"
    r"|\b(?:accuracy|score|percent(?:age)?|rate|number of|size|speed-?up|gain|improvement"
    r"|error|bleu|f1|parameters|dimension(?:s|ality)?|value|by how|share|fraction|proportion"
    r"|count)\b",
    re.IGNORECASE,
)
# "How many training examples ...": the words after it name what is counted.
_COUNTED = re.compile(r"\bhow many\s+((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['\u2019]s?$")  # "DPR's" names DPR
_VERB_SHAPED = re.compile(r"(?:ing|ed|ly|es)$")
_NAME = re.compile(r"[^\s,;:!?()\"']+")
# A byline the question names a paper by ("Zelikman et al.'s reasoning paper"): its
# surnames are not what the paper's sentences speak of.
BYLINE = re.compile(
    r"\b[A-Z][\w'\u2019-]*(?:\s+(?:and|&)\s+[A-Z][\w'\u2019-]*)?\s+et\s+al\b\.?(?:'s|\u2019s)?"
)
_FRAME_WEIGHT = 0.25
_LISTED = 3  # missing terms a lead line names
_MISSING_SHARE = 1 / 2  # the share of the question's words from which missing ones are named


def joined_terms(question: str) -> dict[str, tuple[str, ...]]:
    """The question's words typed apart (`chat.rag.names.printing.typed_apart`) joined into one,
    as a paper may print them ("flash attention" as "FlashAttention", "data set" as
    "dataset"): each joined term with the terms of its words."""
    joined: dict[str, tuple[str, ...]] = {}
    for run in typed_apart(question):
        one = terms(run.joined)
        parts = tuple(t for w in run.words for t in terms(w))
        if len(one) == 1 and one[0] not in parts:
            joined.setdefault(one[0], parts)
    return joined


def frame_weight(term: str) -> float:
    """How much a question term says what the question is about: less for the words that
    frame what it asks for ("paper", "problem", "stand", "results")."""
    return _FRAME_WEIGHT if term in _FRAME_TERMS else 1.0


@dataclass(frozen=True)
class QuestionTerms:
    """The question's terms as scoring and coverage use them."""

    weights: dict[str, float]  # question term -> weight (framing words count less)
    content: frozenset[str]  # the terms a relevant sentence must share with it
    bigrams: frozenset[tuple[str, str]]
    wants_number: bool
    names: dict[str, str]  # term -> the name as the question prints it ("zero" -> "ZeRO")
    printed: dict[str, str]  # term -> the question's word for it
    # The terms of what "how many" counts ("how many test errors": "test", "error").
    counted: frozenset[str] = frozenset()
    # Words the question types apart, joined as a paper may print them: the joined term
    # with the question's terms it holds ("flashattent": "flash", "attent").
    joined: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The family key of each question term (`word_forms.family`) with the term.
    families: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, question: str) -> QuestionTerms:
        question = BYLINE.sub(" ", question)
        stems = terms(question)
        weights = {t: frame_weight(t) for t in stems}
        content = {t for t, w in weights.items() if w == 1.0 and t not in _GENERIC_TERMS}
        content = content or set(weights)
        printed: dict[str, str] = {}
        for word in words(question):
            for term in terms(word):
                printed.setdefault(term, word)
        names: dict[str, str] = {}
        for token in _NAME.findall(question):
            token = _POSSESSIVE.sub("", token.strip(".+*&#/"))
            found = terms(token)
            if is_name(token) and len(found) == 1:
                names[found[0]] = token
                printed[found[0]] = token
        counted = {t for m in _COUNTED.finditer(question) for t in terms(m.group(1))}
        return cls(
            weights,
            frozenset(content),
            frozenset(pairwise(stems)),
            bool(_ASKS_FOR_NUMBER.search(question)),
            names,
            printed,
            frozenset(counted & content),
            joined_terms(question),
            families_of(weights),
        )

    def sentence_terms(self, sentences: Sequence[Sentence]) -> dict[Sentence, tuple[str, ...]]:
        """Each sentence's terms, a name's term kept only where the name is printed (in
        its case, or as the long form that one of `sentences` gives for it), words the
        question types apart held where the sentence prints them joined ("flash
        attention" in "FlashAttention"), and a question's term held where the sentence
        prints a word of its family ("dimensions" in "500 dimensional": `word_forms`)."""
        found = self._named_terms(sentences) if self.names else {s: s.terms for s in sentences}
        if self.joined:
            found = {s: self._with_parts(held) for s, held in found.items()}
        kin = family_terms(found.values(), self.families)
        if not kin:
            return found
        return {s: with_family_terms(held, kin) for s, held in found.items()}

    def _with_parts(self, held: tuple[str, ...]) -> tuple[str, ...]:
        parts = [p for t in held for p in self.joined.get(t, ()) if p not in held]
        return (*held, *dict.fromkeys(parts)) if parts else held

    def _named_terms(self, sentences: Sequence[Sentence]) -> dict[Sentence, tuple[str, ...]]:
        texts = [s.text for s in sentences]
        forms = {t: (name, _long_form(name, texts)) for t, name in self.names.items()}
        found: dict[Sentence, tuple[str, ...]] = {}
        for s in sentences:
            missing = {t for t, form in forms.items() if not _prints(s.text, *form)}
            # A sentence under a heading that names it is about the name: "Good default
            # settings are ... = 0.002" in the section "7.1 AdaMax".
            heading = s.source.section if s.source.kind == "fulltext" else ""
            missing = {t for t in missing if not (heading and _prints(heading, *forms[t]))}
            kept = tuple(t for t in s.terms if t not in missing)
            named = tuple(t for t in forms if t not in missing and t not in kept)
            found[s] = kept + named
        return found

    def lead_line(
        self, chosen: Sequence[Sentence], found: Mapping[Sentence, tuple[str, ...]], undefined: str
    ) -> str:
        """The line that says which of the question's topics the answer (`chosen`) leaves
        out, "" when none; `found` holds every quotable sentence of the sources with its
        terms (`sentence_terms`), and
        `undefined` an asked term that no sentence defines.

        Only what no source holds is named: a name or number of the question ("MNIST",
        "beta2"), or its other words ("saffron") when they are a good part of it and not
        shaped like verbs or adverbs ("validated", "really"): sources answer in words of
        their own, and one missing common word says little."""
        if not chosen:
            return ""
        if undefined:
            return (
                f'None of the sources found defines "{undefined}"; this is what they say about it.'
            )
        held = set().union(*(found[s] for s in chosen))
        anywhere = set().union(*found.values())
        wanted = [t for t in self.content if t not in _ASKING_TERMS and len(t) > 2]
        # "beta2" is there where the sources print "β2".
        said = held | anywhere
        missing = [t for t in wanted if t not in said and printed_symbol(t) not in said]
        named = [t for t in missing if t in self.names or any(c.isdigit() for c in t)]
        words = [t for t in missing if t not in named and not self._verb_shaped(t)]
        if len(words) < _MISSING_SHARE * len(wanted):
            words = []
        if not (named or words) or not any(t in held for t in wanted):
            return ""
        ordered = sorted(named + words, key=self._order)
        names = _listed([f'"{self.printed.get(t, t)}"' for t in ordered[:_LISTED]])
        more = " among others" if len(ordered) > _LISTED else ""
        return f"Only part of the question is answered here: nothing below mentions {names}{more}."

    def _verb_shaped(self, term: str) -> bool:
        return _VERB_SHAPED.search(self.printed.get(term, term)) is not None

    def _order(self, term: str) -> int:
        return list(self.weights).index(term) if term in self.weights else len(self.weights)


def _long_form(name: str, texts: Iterable[str]) -> re.Pattern[str] | None:
    long_form = long_form_of(name, texts)
    return re.compile(re.escape(long_form), re.IGNORECASE) if long_form else None


def _prints(text: str, name: str, long_form: re.Pattern[str] | None) -> bool:
    """Whether `text` holds the name, as a name, or its long form."""
    if find_name(text, name) is not None:
        return True
    return long_form is not None and long_form.search(text) is not None


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
