# Unicode letters and symbols that look like ASCII ones are what this module is for.
# ruff: noqa: RUF001, RUF002
"""TeX in titles and abstracts, shown readably: `$\\alpha$-stable` becomes `α-stable`.

Not a TeX renderer: it drops math delimiters and font commands, turns
accents, Greek letters and common symbols into their Unicode characters,
and simple super- and subscripts into Unicode ones where every character
has one. Anything it does not know is left as written. The result is plain
text; the page templates escape it like any other text.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_GREEK: Final = [
    *("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"),
    *("lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi"),
    "omega",
]
_CAPITAL_GREEK: Final = [
    *("gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon", "phi", "psi", "omega")
]


def _greek(case: str, name: str) -> str:
    # Unicode spells lambda "LAMDA".
    return unicodedata.lookup(f"GREEK {case} LETTER {name.upper().replace('LAMBDA', 'LAMDA')}")


_SYMBOLS: Final = {
    **{name: _greek("SMALL", name) for name in _GREEK},
    **{name.capitalize(): _greek("CAPITAL", name) for name in _CAPITAL_GREEK},
    "varepsilon": "ε",
    "vartheta": "ϑ",
    "varphi": "φ",
    "varrho": "ϱ",
    "ell": "ℓ",
    "hbar": "ℏ",
    "infty": "∞",
    "partial": "∂",
    "nabla": "∇",
    "sum": "∑",
    "prod": "∏",
    "int": "∫",
    "sqrt": "√",
    "pm": "±",
    "mp": "∓",
    "times": "×",
    "cdot": "·",
    "cdots": "⋯",
    "ldots": "…",
    "dots": "…",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "ne": "≠",
    "ll": "≪",
    "gg": "≫",
    "approx": "≈",
    "sim": "∼",
    "simeq": "≃",
    "equiv": "≡",
    "propto": "∝",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "leftrightarrow": "↔",
    "mapsto": "↦",
    "in": "∈",
    "notin": "∉",
    "subset": "⊂",
    "subseteq": "⊆",
    "cup": "∪",
    "cap": "∩",
    "forall": "∀",
    "exists": "∃",
    "emptyset": "∅",
    "circ": "∘",
    "deg": "°",
    "prime": "′",
    "langle": "⟨",
    "rangle": "⟩",
    "log": "log",
    "exp": "exp",
    "sin": "sin",
    "cos": "cos",
    "max": "max",
    "min": "min",
    "lim": "lim",
    "quad": " ",
    "qquad": " ",
    "textendash": "–",
    "textemdash": "—",
    "%": "%",
    "&": "&",
    "_": "_",
    "$": "$",
    "#": "#",
    "{": "{",
    "}": "}",
    ",": " ",
    ";": " ",
    " ": " ",
}
_ACCENTS: Final = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
}
_LETTERS: Final = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
}
_BLACKBOARD: Final = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}
_SUPERSCRIPT: Final = dict(zip("0123456789+-=()nit", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵗ", strict=True))
_SUBSCRIPT: Final = dict(zip("0123456789+-=()aeijknmtx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₙₘₜₓ", strict=True))

_ACCENTED = re.compile(r"\{?\\([`'^\"~=.]|[cvuH](?=[\s{]))\s*\{?([A-Za-z]|\\i)\}?\}?")
_LETTER = re.compile(r"\{?\\(ss|ae|AE|[oOlLi])(?![A-Za-z])\}?")
_BLACKBOARD_CMD = re.compile(r"\\mathbb\s*\{?\s*([A-Z])\s*\}?")
_FONT_CMD = re.compile(
    r"\\(?:emph|textit|textbf|textrm|textsf|texttt|textsc|text|mathrm|mathit|mathbf|mathcal"
    r"|mathsf|mathtt|mbox|boldsymbol|bm|operatorname|url)\s*\{([^{}]*)\}"
)
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|([A-Za-z0-9]))")
_COMMAND = re.compile(r"\\([A-Za-z]+|[%&_$#{},; ])")
_DASHES = (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”"))


def _accent(match: re.Match[str]) -> str:
    letter = "ı" if match[2] == "\\i" else match[2]
    return unicodedata.normalize("NFC", letter + _ACCENTS[match[1]])


def _script(match: re.Match[str]) -> str:
    body = match[2] if match[2] is not None else match[3]
    table = _SUPERSCRIPT if match[1] == "^" else _SUBSCRIPT
    if body and all(char in table for char in body):
        return "".join(table[char] for char in body)
    return f"{match[1]}{body}" if len(body) == 1 else f"{match[1]}({body})"


def _command(match: re.Match[str]) -> str:
    return _SYMBOLS.get(match[1], match[0])


def readable_tex(text: str) -> str:
    """`text` with its TeX markup made readable, whitespace runs collapsed to one space."""
    out = _ACCENTED.sub(_accent, text)
    out = _LETTER.sub(lambda m: _LETTERS[m[1]], out)
    out = _BLACKBOARD_CMD.sub(lambda m: _BLACKBOARD.get(m[1], m[1]), out)
    for _ in range(3):  # nested font commands, innermost first
        out = _FONT_CMD.sub(r"\1", out)
    out = _SCRIPT.sub(_script, out)
    out = _COMMAND.sub(_command, out)
    out = re.sub(r"(?<!\\)\$+", "", out)
    for tex, char in _DASHES:
        out = out.replace(tex, char)
    out = re.sub(r"(?<![\\\w])\{([^{}]*)\}", r"\1", out)
    out = out.replace("~", "\u00a0")
    return re.sub(r"[ \t\r\n]+", " ", out).strip()


def readable_paragraphs(text: str) -> list[str]:
    """An abstract's paragraphs (a blank line, or a line break then an indent, starts one)."""
    parts = re.split(r"\n\s*\n|\n(?=[ \t]+\S)", text.strip())
    return [para for part in parts if (para := readable_tex(part))]
