"""The terms a PDF defines and where its pages use them.

A paper defines an acronym with its long form in either order ("retrieval-augmented
generation (RAG)", "FiD (Fusion-in-Decoder)", read as the names catalog reads them:
`ingest.index.names.mining.printed_pairs`), and a symbol in a sentence that says what it
is ("where L is the maximum length of the passage", "Nd denotes DP degree"). The first
definition of a name is its term; a use is the name printed after it, an acronym on any
later page and a symbol on its own page and the next (a symbol is soon given another
meaning). Places are ranges of a page's text, one character a PDFium character index.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from ingest.index.names.mining import is_short_form, number_forms, printed_pairs

# The most terms of one paper, the most uses marked on one page, and the most definitions
# read from one page (a page of thousands is read so far).
MAX_TERMS: Final = 200
MAX_USES: Final = 300
MAX_PAIRS: Final = 2000
# Pages after its own on which a symbol is still marked.
_SYMBOL_PAGES: Final = 1
_BREAK: Final = "\ufffe"
_QUOTES: Final = "\"'\u2018\u2019\u201c\u201d "
# A long form is words: a comma or an equals sign means a list or a formula was read.
_NOT_IN_LONG_FORM: Final = re.compile(r"[,=;\d\u2060]")
# "where L is the ...", "where n is the ..., d is the ...", "Nd denotes ...": a symbol is a
# letter, with letters, digits or marks after it, not a word.
_SYMBOL: Final = r"[^\W\d_]\u2060?[^\W_]{0,3}[\u02dc\u2032']?"
_WORDS: Final = r"[a-z][a-z\- ]{2,60}?(?:\s+of\s+(?:the\s+)?[a-z\-]+)?"
_END: Final = r"(?=\s*(?:[,.;:(]|\s(?:and|in|for|with|as|to|which)\b))"
_SYMBOL_DEFINED: Final = re.compile(
    rf"(?:\bwhere\s+|(?<=,\s)(?=\S+\s+is\s+the\s))(?P<symbol>{_SYMBOL})\s+(?:is|represents)"
    rf"\s+(?:the\s+|an?\s+)?(?P<meaning>{_WORDS}){_END}"
    rf"|(?<![\w\-])(?P<denoted>{_SYMBOL})\s+denotes\s+(?:the\s+|an?\s+)?"
    rf"(?P<denotation>{_WORDS}){_END}"
)
# Tokens that are no symbol ("where it is", "where each is"): a lower-case word, a
# capitalised one, a run of capitals (an acronym: "FEVER is ...").
_PLAIN_WORD: Final = re.compile(r"^[a-z]{2,}$|^[A-Z][a-z]+$|^[A-Z]{3,}$|^(?:I|A)$")


@dataclass(frozen=True)
class Term:
    """A defined name: what it means, its form ("acronym" or "symbol"), and the page
    (1-based) and characters of that page's text where it is defined."""

    name: str
    meaning: str
    kind: str
    page: int
    start: int
    end: int


def defined_terms(texts: Sequence[str]) -> tuple[Term, ...]:
    """The terms of a paper's page texts, each name at its first definition, in the order
    printed, at most `MAX_TERMS`."""
    terms: dict[str, Term] = {}
    for number, text in enumerate(texts, start=1):
        for term in _page_definitions(number, text):
            terms.setdefault(term.name, term)
            if len(terms) >= MAX_TERMS:
                return tuple(terms.values())
    return tuple(terms.values())


def term_uses(terms: Sequence[Term], page: int, text: str) -> list[tuple[Term, int, int]]:
    """Where page `page`'s text prints a term after its definition: the term and the
    characters of each use, in the order printed, at most `MAX_USES`."""
    shown = [term for term in terms if _shown_on(term, page)]
    if not shown:
        return []
    by_form = {form: term for term in shown for form in _forms(term)}
    forms = sorted(by_form, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w\-])(?:" + "|".join(map(re.escape, forms)) + r")(?!\w)")
    uses: list[tuple[Term, int, int]] = []
    for found in pattern.finditer(text):
        term = by_form[found.group()]
        if term.page == page and found.start() < term.end:
            continue
        uses.append((term, found.start(), found.end()))
        if len(uses) >= MAX_USES:
            break
    return uses


def _shown_on(term: Term, page: int) -> bool:
    last = page if term.kind == "acronym" else term.page + _SYMBOL_PAGES
    return term.page <= page <= last


def _forms(term: Term) -> list[str]:
    return number_forms(term.name) if term.kind == "acronym" else [term.name]


def _page_definitions(page: int, text: str) -> Iterator[Term]:
    clean, where = _joined(text)
    found = [*_acronyms(page, clean, where), *_symbols(page, clean, where)]
    yield from sorted(found, key=lambda term: term.start)


def _acronyms(page: int, clean: str, where: list[int]) -> Iterator[Term]:
    pairs = printed_pairs(clean)
    for _count, (name, long, _lead, start) in zip(range(MAX_PAIRS), pairs, strict=False):
        if not is_short_form(name) or _NOT_IN_LONG_FORM.search(long):
            continue
        end = clean.find(")", start) + 1
        if _is_list(clean[clean.find("(", start) + 1 : end - 1]):
            continue
        meaning, start = _whole(name, long.strip(_QUOTES), clean, start)
        yield Term(name, meaning, "acronym", page, where[start], where[max(end, start + 1) - 1] + 1)


def _whole(name: str, long: str, clean: str, start: int) -> tuple[str, int]:
    """The long form with the word before it when that word's initial is the name's first
    letter and the words' initials then spell the name: the letters of "PPO" fall in
    "policy optimization" too ("p" and "o" of "optimization"), but "proximal policy
    optimization" is its long form."""
    letters = [c.lower() for c in name if c.isalpha()]
    words = long.split()
    before = clean[:start].rstrip()
    previous = before.rsplit(None, 1)[-1] if before else ""
    if len(words) >= len(letters) or not previous.isalpha():
        return long, start
    if [word[0].lower() for word in (previous, *words)] != letters:
        return long, start
    return f"{previous} {long}", len(before) - len(previous)


def _is_list(inside: str) -> bool:
    """Whether a parenthesis lists names ("ARC, BoolQ, CoQA"): its first is no short form
    of the words before it, however its letters fall."""
    parts = [part.strip() for part in inside.split(",")]
    return len(parts) >= 3 and all(len(part.split()) == 1 for part in parts[:3])


def _symbols(page: int, clean: str, where: list[int]) -> Iterator[Term]:
    for found in _SYMBOL_DEFINED.finditer(clean):
        group = "symbol" if found["symbol"] else "denoted"
        meaning = found["meaning"] or found["denotation"]
        symbol = found[group]
        if _PLAIN_WORD.search(symbol):
            continue
        end = found.end("meaning" if found["meaning"] else "denotation")
        start = found.start(group)
        named = " ".join(meaning.split())
        yield Term(symbol, named, "symbol", page, where[start], where[end - 1] + 1)


def _joined(text: str) -> tuple[str, list[int]]:
    """A page's text with its lines joined (a word broken over two lines made whole, a
    line's end a space), and where each of its characters stands in the page's text."""
    kept: list[str] = []
    where: list[int] = []
    at, count = 0, len(text)
    while at < count:
        char = text[at]
        if char == _BREAK:
            at += 3 if text.startswith("\r\n", at + 1) else 1
            continue
        if char == "\r" and text.startswith("\r\n", at):
            kept.append(" ")
            where.append(at)
            at += 2
            continue
        kept.append(char)
        where.append(at)
        at += 1
    return "".join(kept), where
