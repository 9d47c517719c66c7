"""What "the second one" of a follow-up is, when the previous question asked about the
parts of one thing ("What agents does PaSa consist of?"; "the first step" of a two-stage
method).

The previous question's noun ("agents") says what is counted; the previous answer, or
the sources, list them in order ("two LLM agents: the Crawler and the Selector"). The
question is asked of the part in that place ("what does the Selector do?"), else of the
noun in that place ("the second agent"), which papers print as they count ("In the
second stage, ..."). Comparisons of named papers ("the second one" after "OPT-175B or
PaLM?") are read by their names elsewhere (`chat/rag/answer/followups.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chat.rag.extractive.answer_type import question_entities

# "the second one", "the first step", "the latter stage".
_ORDINAL = re.compile(
    r"\bthe (first|second|third|fourth|former|latter|last|final)"
    r"(?: (one|step|stage|phase|part|agent|module|component|model|network|loss|task|level"
    r"|layer|pass|round|module))?\b",
    re.IGNORECASE,
)
_PLACES = {"first": 0, "former": 0, "second": 1, "third": 2, "fourth": 3, "latter": -1,
           "last": -1, "final": -1}  # fmt: skip
# What the previous question counts: "What agents ...", "which two stages ...", "how many
# steps ...", "what are the components of ...": the first plural word of the few after it.
_ASKING = re.compile(r"\b(?:what|which|how many)\s+((?:[\w-]+\s+){0,3})", re.IGNORECASE)
_NOT_NOUNS = frozenset(["does", "has", "is", "was", "this", "its", "us", "as", "less"])
_ITEM = r"(?:(?:the|an?|its)\s+)?([A-Z][\w-]*(?:\s[A-Z][\w-]*){0,3})"
_MOST_ITEMS = 6


def ordinal_of(question: str) -> tuple[int, str] | None:
    """(place, noun) of "the second one" ("one" when it names none) in `question`."""
    match = _ORDINAL.search(question)
    if match is None:
        return None
    return _PLACES[match.group(1).lower()], (match.group(2) or "one").lower()


def listed(noun: str, texts: Iterable[str]) -> list[str]:
    """The names `texts` list after `noun` in the plural, in order, from the first text
    that lists two at least: "two LLM agents: the Crawler and the Selector" gives
    ["Crawler", "Selector"]."""
    head = re.compile(
        rf"\b{re.escape(noun)}s\s*(?:[:(\u2014,-]|,?\s+(?:namely|called|named)\b)\s*"
        rf"{_ITEM}((?:\s*(?:,|,?\s*and|,?\s*or)\s*{_ITEM}){{1,{_MOST_ITEMS}}})",
        re.IGNORECASE,
    )
    for text in texts:
        match = head.search(text)
        if match is None:
            continue
        rest = re.findall(rf"(?:,|\band\b|\bor\b)\s*{_ITEM}", match.group(2))
        return [match.group(1), *rest]
    return []


def resolved(question: str, previous: str, texts: Iterable[str]) -> str:
    """`question` with "the second one" (any place) as what it points at: the name in that
    place of those the previous question (`previous`) asked for, listed by `texts`; else
    the previous question's noun in that place ("the second agent"). Unchanged when it
    points at none, or when the previous question names what it counts by no noun."""
    found = ordinal_of(question)
    match = _ORDINAL.search(question)
    if found is None or match is None or len(question_entities(previous)) > 1:
        return question
    place, noun = found
    if noun == "one":
        noun = _asked_noun(previous)
        if not noun:
            return question
    names = listed(noun, texts)
    counted = f"the {match.group(1).lower()} {noun}"
    if not -len(names) <= place < len(names):
        said = counted
    else:
        said = f"the {names[place]}" if found[1] == "one" else f"{counted} ({names[place]})"
    return f"{question[: match.start()]}{said}{question[match.end() :]}"


def _asked_noun(question: str) -> str:
    """The thing `question` asks several of, singular ("agent" of "What agents does PaSa
    consist of?"); "" when none."""
    match = _ASKING.search(question)
    words = match.group(1).lower().split() if match else []
    plural = [w for w in words if w.endswith("s") and not w.endswith("ss")]
    nouns = [w for w in plural if w not in _NOT_NOUNS]
    return nouns[0].removesuffix("s") if nouns else ""
