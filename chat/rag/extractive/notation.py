"""Greek letters written out in a question, as papers print them.

A question types "epsilon", "beta1" or "lambda"; the paper prints "ε = 10-8",
"β1 = 0.9", "λ". Neither the search nor the sentence scoring would see those as
the same words: the question's letters are added to it as printed.
"""

from __future__ import annotations

import re

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
