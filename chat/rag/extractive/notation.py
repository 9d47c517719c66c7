"""Greek letters written out in a question, as papers print them, and symbols a question
asks for by the words an algorithm box defines them with.

A question types "epsilon", "beta1" or "lambda"; the paper prints "ε = 10-8",
"β1 = 0.9", "λ". Neither the search nor the sentence scoring would see those as
the same words: the question's letters are added to it as printed. A symbol defined only
in an algorithm box ("Require: β1, β2 ∈ [0, 1): Exponential decay rates for the moment
estimates") is asked for by its description's words; the prose gives its value
("β1 = 0.9"), so the symbol is added too (`with_boxed_symbols`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from chat.rag.extractive.sentences import split_sentences
from ingest.index.lexical.analysis import terms

# The letters papers name their settings by; not "phi", "chi", "nu" or "xi", which
# questions write as names ("Phi-3") or words more often than as symbols.
_LETTERS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η",  # noqa: RUF001
    "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "rho": "ρ", "sigma": "σ",  # noqa: RUF001
    "tau": "τ", "omega": "ω",
}  # fmt: skip
# "beta1", "beta_1", "beta 1", "beta-2": a letter's name, and the index printed after it.
_SPELLED = re.compile(rf"\b({'|'.join(_LETTERS)})(?:[\s_-]?([0-9]))?\b", re.IGNORECASE)


def with_symbols(question: str) -> str:
    """`question` with the Greek letters it spells out added as printed ("What is Adam's
    default beta1?" gains "β1"); unchanged when it spells none or prints them itself."""
    printed = []
    for match in _SPELLED.finditer(question):
        symbol = _LETTERS[match.group(1).lower()] + (match.group(2) or "")
        if symbol not in question and symbol not in printed:
            printed.append(symbol)
    return f"{question} {' '.join(printed)}" if printed else question


def printed_symbol(term: str) -> str:
    """The symbol a term spelling a Greek letter stands for, as a paper prints it ("beta2":
    "β2", "epsilon": "ε"); "" for any other term."""
    match = _SPELLED.fullmatch(term)
    return _LETTERS[match.group(1).lower()] + (match.group(2) or "") if match else ""


# A line of an algorithm box that names its symbols: "Require: β1, β2 ∈ [0, 1): Exponential
# decay rates for the moment estimates", "Input: η: learning rate".
_BOX_LINE = re.compile(
    r"^\s*(?:Require|Input|Inputs|Parameters?|Given)\s*:\s*([^:\n]{1,40}):\s*([^\n]+)$",
    re.MULTILINE | re.IGNORECASE,
)
_SYMBOL = re.compile(r"[^\W\d_]{1,2}\d{0,2}")  # "β1", "θ0"; not "f(θ)"
_RANGE = re.compile(r"[\u2208=<>\u2264\u2265]")  # where a symbol's range starts ("∈ [0, 1)")
# The words of a symbol's description a question must hold to ask for it: two at least,
# and half of them.
_DESCRIBED_TERMS = 2
_DESCRIBED_SHARE = 0.5


def boxed_notation(text: str) -> list[tuple[tuple[str, ...], str]]:
    """(symbols, description) for each symbol line of an algorithm box in `text`."""
    found = []
    for match in _BOX_LINE.finditer(text):
        head = _RANGE.split(match.group(1))[0]
        symbols = tuple(s for s in (p.strip() for p in head.split(",")) if _SYMBOL.fullmatch(s))
        if symbols:
            found.append((symbols, match.group(2)))
    return found


def asked_symbols(question: str, texts: Iterable[str]) -> list[str]:
    """The symbols that algorithm boxes of `texts` define by words `question` asks with
    ("default decay rates for its moment estimates" asks for β1 and β2, "Exponential decay
    rates for the moment estimates" in Adam's box), those the question prints left out: a
    paper gives their values in its prose ("β1 = 0.9"), never in the question's words."""
    asked = set(terms(question))
    found: list[str] = []
    for text in texts:
        for symbols, description in boxed_notation(text) if ":" in text else ():
            described = set(terms(description))
            shared = len(asked & described)
            if shared >= max(_DESCRIBED_TERMS, _DESCRIBED_SHARE * len(described)):
                found += [s for s in symbols if s not in question]
    return list(dict.fromkeys(found))


def with_boxed_symbols(question: str, texts: Iterable[str]) -> str:
    """`question` with the symbols it asks for in words (`asked_symbols`) after it."""
    symbols = asked_symbols(question, texts)
    return f"{question} {' '.join(symbols)}" if symbols else question


# A letter a paper names a count by ("L", "h", "N").
_LETTER = r"[A-Za-z]"
_SAMPLED = frozenset({"participant", "subject", "user", "respondent", "people", "person"})


def counted_noun(counted: str) -> str:
    """The counted word a number is printed with, singular or plural: "layers" of
    "encoder layers" read as "layer"."""
    words = counted.split()
    if not words:
        return ""
    last = words[-1].lower()
    return last[:-1] if last.endswith("s") and len(last) > 3 else last


def notation(counted: str, texts: Iterable[str]) -> set[str]:
    """The letters `texts` define for the counted thing: "the number of layers ... as L",
    "#L = the number of layers", "N = 6 identical layers", "h = 8 parallel attention
    layers, or heads"."""
    noun = counted_noun(counted)
    if not noun:
        return set()
    counted = rf"(?:[\w-]+\s+)?{re.escape(noun)}s?\b"
    patterns = (
        rf"number of {counted}[^;]{{0,40}}?\bas\s+({_LETTER})\b",
        rf"#?({_LETTER})\s*=\s*the number of {counted}",
        rf"\b({_LETTER})\s*=\s*\d+(?:\s+[\w-]+){{0,4}}?,?\s+(?:or\s+)?{counted}",
    )
    # A study's number of participants is its N ("A controlled lab study (N=10)").
    found = {"N"} if noun in _SAMPLED else set()
    for text in texts:
        for pattern in patterns:
            found.update(m[1] for m in re.finditer(pattern, text, flags=re.IGNORECASE))
    return found


def notation_stated(
    counted: str, entities: Sequence[str], passages: Sequence[tuple[str, str]]
) -> list[str]:
    """The first of a paper's `passages` ((id, text) in reading order) with a sentence that
    names an entity asked about and sets the letter the paper defines for what is
    `counted` ("BERT-large (L=24, H=1024, A=16)"), then the passage defining it ("We
    denote the number of layers ... as L"); [] when it defines none or sets it for none
    of them."""
    named = [e.lower() for e in entities if e]
    if not named:
        return []
    defined = ((chunk, notation(counted, [text])) for chunk, text in passages)
    defining, symbols = next(((c, found) for c, found in defined if found), ("", set()))
    if not symbols:
        return []
    setting = _setting(symbols)
    for chunk, text in passages:
        for sentence in split_sentences(text):
            if setting.search(sentence) and any(e in sentence.lower() for e in named):
                return list(dict.fromkeys([chunk, defining]))
    return []


def _setting(symbols: Iterable[str]) -> re.Pattern[str]:
    """A pattern for one of `symbols` set to a number ("L=24", "h = 8")."""
    return re.compile(rf"(?<![\w#])(?:{'|'.join(sorted(symbols))})\s*=\s*\d")
