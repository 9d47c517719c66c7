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
from collections.abc import Iterable

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
