"""What an arXiv id looks like in an answer's text, with no `arXiv` written before it.

`BARE_ID` is an id written alone: new-style (`2203.12533`, `0704.0001`) or old-style
under one of arXiv's archives (`hep-th/9901001`, `math.GT/0309136`), with a version or
not. Inside a bracket of any kind such a string is a citation (`[9999.99999]`,
`【2203.12533】`, `(hep-th/9901001)`). In prose it is read as an id only when arXiv
could have given it (`NUMBERED_ID`: a month 01 to 12 after the year, four digits after
the point up to 2014 and five from 2015 on) or when it names an archive: "9999.99999
parameters" and "1234.5678" stay numbers. Patterns are for text folded by
`chat.rag.citations.confusables.fold_char` and read with `re.IGNORECASE`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The archives of old-style ids (before April 2007); q-fin and stat came later.
ARCHIVES = (
    "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an",
    "chao-dyn", "chem-ph", "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an",
    "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math", "math-ph", "mtrl-th",
    "nlin", "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio",
    "quant-ph", "solv-int", "supr-con",
)  # fmt: skip


def _tree(names: Iterable[str], *, beginnings: bool = False) -> str:
    """A pattern matching exactly `names` (with `beginnings`: every beginning of one, but
    the empty one), written as the tree of their letters ("a(?:cc-phys|...)", a longer name
    tried before a shorter one it begins with): a text that is none of them is told so
    after a few branches, not after one branch for each name."""
    rests: dict[str, list[str]] = {}
    for name in names:
        if name:
            rests.setdefault(name[0], []).append(name[1:])
    branches = []
    for first, after in sorted(rests.items()):
        rest = _tree(after, beginnings=beginnings)
        optional = bool(rest) and (beginnings or "" in after)
        branches.append(re.escape(first) + (f"{rest}?" if optional else rest))
    return "(?:" + "|".join(branches) + ")" if branches else ""


_ARCHIVE = _tree(ARCHIVES) + r"(?:\.[a-z]{2})?"
_VERSION = r"(?:v\d+)?"
# Where an id ends: no letter, digit or slash goes on, nor a point before a digit ("2.13.0").
_END = r"(?![\w/]|\.\d)"

# An id written alone: the id (group `bare`) and its version, if any.
BARE_ID = rf"(?P<bare>\d{{4}}\.\d{{4,5}}|{_ARCHIVE}/\d{{7}}){_VERSION}{_END}"
# An id as arXiv numbers them (YYMM.NNNN to 2014, YYMM.NNNNN since), or under an archive.
NUMBERED_ID = (
    r"(?P<bare>(?:0[7-9]|1[0-4])(?:0[1-9]|1[0-2])\.\d{4}"
    r"|(?:1[5-9]|[2-9]\d)(?:0[1-9]|1[0-2])\.\d{5}"
    rf"|{_ARCHIVE}/\d{{7}}){_VERSION}{_END}"
)


# Every beginning of a `BARE_ID` (and a little more, which only delays a decision).
BARE_ID_PREFIX = (
    r"(?:\d{1,4}(?:\.\d{0,5}(?:v\d*)?\.?)?"
    r"|" + _tree(ARCHIVES, beginnings=True) + r"(?:\.[a-z]{0,2})?(?:/\d{0,7}(?:v\d*)?)?)"
)
