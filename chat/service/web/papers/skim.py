"""Skimming a paper: the few sentences of its PDF that state its goal, its method, its
results and its limitations, for the reader to tint and list.

Each sentence of the paper's pages (up to its reference list) is weighed for each facet by
the phrases that state it in papers' own voice: "in this paper we", "our goal" (goal);
"we train", "our model consists of" (method); "outperforms", "we find that", a score
(result); "a limitation", "does not scale", "future work" (limitation). A sentence goes to
the facet it weighs most in, when it reaches `MIN_WEIGHT`; the paper keeps the heaviest
few of each facet (`KEPT`), at most `MAX_ON_PAGE` on one page, the earlier first where
weights tie, so that the tint picks out a handful of sentences rather than every line
that says "we". Headings, captions, table rows, formulas and reference entries are never
chosen.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from chat.rag.extractive.sentences import (
    is_caption,
    is_code_or_math,
    is_reference_entry,
    is_table_row,
)

Facet = Literal["goal", "method", "result", "limitation"]
FACETS: Final[tuple[Facet, ...]] = ("goal", "method", "result", "limitation")
# Sentences kept of each facet for a whole paper, and of all facets on one page.
KEPT: Final[dict[Facet, int]] = {"goal": 3, "method": 5, "result": 6, "limitation": 3}
MAX_ON_PAGE: Final = 3
MIN_WEIGHT: Final = 2.0
# A sentence shorter or longer than these is a fragment, or a paragraph the splitter missed.
MIN_CHARS: Final = 50
MAX_CHARS: Final = 450

_I = re.IGNORECASE
# (pattern, weight) of each facet; a sentence's weight is the sum of the patterns it holds.
_CUES: Final[dict[Facet, tuple[tuple[re.Pattern[str], float], ...]]] = {
    "goal": (
        (re.compile(r"\bin this (?:paper|work|article|study|report),? we\b", _I), 2.0),
        (
            re.compile(
                r"\bthis (?:paper|work) (?:proposes|presents|introduces|studies|"
                r"investigates|addresses|explores|describes|shows)\b",
                _I,
            ),
            2.0,
        ),
        (
            re.compile(r"\b(?:our|the main) (?:goal|aim|objective|purpose) (?:is|was|here)\b", _I),
            2.5,
        ),
        (re.compile(r"\bthe (?:goal|aim|purpose) of this (?:paper|work|study)\b", _I), 2.5),
        (re.compile(r"\bwe (?:aim|seek|set out|strive) to\b", _I), 2.5),
        (re.compile(r"\bwe (?:address|tackle|investigate|study|explore|ask)\b", _I), 1.5),
        (re.compile(r"\b(?:our|the main) contributions? (?:is|are|of)\b", _I), 2.0),
        (re.compile(r"\bwe (?:propose|introduce|present)\b", _I), 1.0),
    ),
    "method": (
        (
            re.compile(
                r"\bwe (?:use|train|apply|adopt|employ|fine-?tune|pre-?train|initiali[sz]e|"
                r"optimi[sz]e|sample|encode|concatenate|compute|build|construct|implement|"
                r"model|parameteri[sz]e|replace|modify|combine|feed|freeze|minimi[sz]e|"
                r"maximi[sz]e)\b",
                _I,
            ),
            2.0,
        ),
        (
            re.compile(
                r"\b(?:our|the proposed) (?:model|method|approach|architecture|framework|"
                r"system|algorithm)s? (?:consists?|uses?|is|takes?|combines?|relies|"
                r"learns?|computes?|works)\b",
                _I,
            ),
            2.5,
        ),
        (
            re.compile(
                r"\b(?:is|are) (?:trained|optimi[sz]ed|fine-?tuned|pre-?trained|"
                r"initiali[sz]ed|computed|obtained) (?:on|with|by|using|to)\b",
                _I,
            ),
            1.5,
        ),
        (re.compile(r"\bwe (?:propose|introduce|present)\b", _I), 1.0),
    ),
    "result": (
        (re.compile(r"\boutperform(?:s|ed|ing)?\b", _I), 2.5),
        (
            re.compile(
                r"\b(?:achiev|obtain|reach|set)(?:es|e|ed|ing|s)? (?:a |an |the )?"
                r"(?:new )?(?:state[- ]of[- ]the[- ]art|best|highest|competitive)\b",
                _I,
            ),
            2.5,
        ),
        (
            re.compile(
                r"\b(?:results?|experiments?|analys[ie]s) (?:show|demonstrate|indicate|"
                r"suggest|confirm|reveal)s?\b",
                _I,
            ),
            2.0,
        ),
        (re.compile(r"\bwe (?:find|found|observe|show|demonstrate) that\b", _I), 2.0),
        (re.compile(r"\bimprov(?:es|ed|ing|ements?) (?:\w+ ){0,4}(?:by|of|over)\b", _I), 1.5),
        (
            re.compile(
                r"\b(?:significantly|substantially|consistently) (?:better|improv\w*|"
                r"outperform\w*|higher|lower)\b",
                _I,
            ),
            1.5,
        ),
        (re.compile(r"\d(?:\.\d+)?\s?(?:%|points?\b|BLEU\b|F1\b|EM\b|accuracy\b)"), 1.0),
    ),
    "limitation": (
        (re.compile(r"\blimitations?\b", _I), 2.5),
        (re.compile(r"\b(?:drawbacks?|shortcomings?|weakness(?:es)?|caveats?)\b", _I), 2.5),
        (
            re.compile(
                r"\b(?:does|do|did|can|could|may) not (?:scale|generali[sz]e|handle|"
                r"capture|work well|account for|guarantee|address)\b",
                _I,
            ),
            2.0,
        ),
        (re.compile(r"\bfails? to\b", _I), 1.5),
        (
            re.compile(
                r"\bwe (?:have |did )?not (?:yet )?(?:explored?|stud(?:y|ied)|considered?|"
                r"investigated?|address(?:ed)?|evaluated?)\b",
                _I,
            ),
            2.0,
        ),
        (
            re.compile(
                r"\b(?:future work|we leave|left for future|remains? (?:an )?"
                r"(?:open|unclear|challenging))\b",
                _I,
            ),
            2.0,
        ),
        (re.compile(r"\b(?:is|are) (?:limited|restricted) (?:to|by)\b", _I), 1.5),
    ),
}
# A facet's sentence in the paper's own voice ("we", "our", "this paper") weighs more.
_OWN_VOICE: Final = re.compile(r"\b(?:we|our|this (?:paper|work))\b", _I)
# A sentence citing others, not in the paper's own voice, speaks of their work.
_CITES: Final = re.compile(
    r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]|\([A-Z][\w-]+(?: et al\.)?,? (?:19|20)\d\d"
)
_OTHERS: Final = 0.7
# How a sentence ends: a stop, maybe a closing quote or bracket and a footnote's number.
_ENDS: Final = re.compile(r"[.!?:][\"'\u201d)\]]*\d{0,2}$")
# Which facet a tie goes to: the rarer facets first.
_TIE_ORDER: Final[tuple[Facet, ...]] = ("limitation", "result", "method", "goal")
# Where a sentence ends, as `discussions` splits a page's text; and the reference list's heading.
_SENTENCE_END: Final = re.compile(
    r"(?<![Aa]l\.)(?<!e\.g\.)(?<!i\.e\.)(?<!Fig\.)(?<!Eq\.)(?<!Sec\.)(?<!vs\.)"
    r"(?:(?<=[.!?])|(?<=[a-z][.!?]\d))\s+(?=[A-Z\[(0-9])"
)
_REFERENCES_HEADING: Final = re.compile(r"^\s*(?:\d+\.?\s*)?(?:References|Bibliography)\s*$", re.M)
# A section's heading: a number, then a few words with no closing stop.
_HEADING: Final = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s+)?[A-Z][\w-]*(?:\s+[\w-]+){0,7}$")
# A section's number printed before a sentence break: "2.4. | Retro model architecture".
_NUMBER_BEFORE: Final = re.compile(r"(?:^|\n)\s*\d+(?:\.\d+)*\.?\s*$")
_TRAILING_NUMBER: Final = re.compile(r"\s*\d{1,4}$")
_SMALL_WORDS: Final = frozenset({"a", "an", "and", "for", "in", "of", "on", "the", "to"})
_ABSTRACT_OR_INTRODUCTION: Final = re.compile(r"\b(?:Abstract|Introduction)\b")
_CONCLUSION: Final = re.compile(
    r"^\s*(?:\d+\.?\s*)?(?:Conclusions?|Discussion|Limitations)\b", re.M
)


@dataclass(frozen=True)
class SkimSentence:
    """A sentence the skim tints: its page (1-based), where it is in the page's text, its
    facet, its text (white space made single) and its weight."""

    page: int
    start: int
    end: int
    facet: Facet
    text: str
    weight: float


def skim(texts: Sequence[str]) -> tuple[SkimSentence, ...]:
    """The sentences of a paper's page `texts` the skim tints, in reading order."""
    weighed = [
        s
        for number, text in enumerate(texts, start=1)
        for s in _weighed(number, text, number > 1 and _runs_on(texts[number - 2]))
    ]
    weighed = [s for s in weighed if s.page <= _last_page_of_body(texts)]
    chosen: list[SkimSentence] = []
    on_page: Counter[int] = Counter()
    for facet in FACETS:
        ranked = sorted(
            (s for s in weighed if s.facet == facet), key=lambda s: (-s.weight, s.page, s.start)
        )
        taken = 0
        for sentence in ranked:
            if taken == KEPT[facet]:
                break
            if on_page[sentence.page] < MAX_ON_PAGE:
                chosen.append(sentence)
                on_page[sentence.page] += 1
                taken += 1
    return tuple(sorted(chosen, key=lambda s: (s.page, s.start)))


def _last_page_of_body(texts: Sequence[str]) -> int:
    """The page the reference list starts on (its body ends there), else the last page."""
    for number, text in enumerate(texts, start=1):
        if number > 1 and _REFERENCES_HEADING.search(text):
            return number
    return len(texts)


def _runs_on(text: str) -> bool:
    """Whether a page's text ends inside a sentence (the next page's first one goes on),
    its page number and white space left out."""
    return _ENDS.search(_TRAILING_NUMBER.sub("", text.rstrip())) is None


def _weighed(page: int, text: str, continued: bool) -> list[SkimSentence]:
    """Each sentence of a page's `text` (before its reference list) with the facet it
    weighs most in, when that reaches `MIN_WEIGHT`; not its first when it `continued` the
    previous page's last, nor one the page cuts off."""
    heading = _REFERENCES_HEADING.search(text)
    body_end = heading.start() if heading and page > 1 else len(text)
    opening = page <= 2 and _ABSTRACT_OR_INTRODUCTION.search(text) is not None
    closing = _CONCLUSION.search(text)
    found = []
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text, 0, body_end))]
    for begin, end in zip(starts, [*starts[1:], body_end], strict=True):
        start = _after_heading(text, begin, end)
        shown = " ".join(text[start:end].replace("\ufffe", "").split())
        if (continued and begin == 0) or not _is_prose(shown) or not _ENDS.search(shown):
            continue
        weights = {facet: _weight(facet, shown) for facet in FACETS}
        if opening:
            weights["goal"] *= 1.5
        if closing and start >= closing.start():
            weights["limitation"] *= 1.25
            weights["result"] *= 1.25
        facet = max(_TIE_ORDER, key=lambda f: weights[f])
        if weights[facet] >= MIN_WEIGHT:
            stripped = len(text[start:end].rstrip())
            found.append(SkimSentence(page, start, start + stripped, facet, shown, weights[facet]))
    return found


def _after_heading(text: str, start: int, end: int) -> int:
    """Where a sentence begins once the heading lines in it ("5 Limitations and Future
    Directions", "2.4. Retro model architecture") and what comes before them are left out."""
    at = start
    numbered = _NUMBER_BEFORE.search(text, max(0, start - 16), start) is not None
    while (line_end := text.find("\n", at, end)) >= 0:
        following = text[line_end + 1 : end].lstrip()
        line = text[at:line_end].strip()
        if (_is_heading(line) or (numbered and _HEADING.match(line))) and following[:1].isupper():
            start = end - len(following)
        at, numbered = line_end + 1, False
    return start


def _is_heading(line: str) -> bool:
    """A numbered line of a few words ("2.4. Retro model architecture"), or one in title
    case ("Limitations and Future Directions"), with no closing stop."""
    if not _HEADING.match(line):
        return False
    words = line.split()
    if words[0][0].isdigit():
        return True
    return all(w[0].isupper() or w in _SMALL_WORDS for w in words)


def _weight(facet: Facet, sentence: str) -> float:
    weight = sum(w for pattern, w in _CUES[facet] if pattern.search(sentence))
    if _OWN_VOICE.search(sentence):
        return weight * 1.25
    return weight * _OTHERS if _CITES.search(sentence) else weight


def _is_prose(sentence: str) -> bool:
    """A sentence a reader skims: of a sentence's length, mostly words, not a caption, a
    table's row, a formula or a reference entry."""
    if not MIN_CHARS <= len(sentence) <= MAX_CHARS:
        return False
    tokens = sentence.split()
    words = sum(token.strip(".,;:()[]").isalpha() for token in tokens)
    return (
        words >= 0.7 * len(tokens)
        and not is_caption(sentence)
        and not is_table_row(sentence)
        and not is_code_or_math(sentence)
        and not is_reference_entry(sentence)
    )
