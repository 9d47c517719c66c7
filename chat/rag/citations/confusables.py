"""Text as a reader sees it, to judge what it says rather than how it is encoded.

`fold_char` maps one character to what it looks like: NFKC (fullwidth `\uff3b` is `[`,
`\uff41` is `a`), nothing for characters that show nothing (format characters such as
zero-width spaces, joiners and bidi controls, combining marks, controls), Latin
letters for the Cyrillic, Greek and small-capital letters that look like them, a digit
of any script as the digit it is (`\u0669` is `9`), and `[`, `]`, `(`, `)` for the
brackets that read as them (lenticular `\u3010`, tortoise-shell `\u3014`, white square
`\u27e6`, ornamental parentheses). The citation guard reads brackets through it.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Letters of other scripts that look like Latin ones (after NFKC), read as those.
_LOOKALIKES = str.maketrans(
    # Cyrillic, Greek, then Latin letters (dotless, small capitals) that look like a-z, A-Z.
    "\u0430\u0441\u0501\u0435\u04bb\u0456\u0458\u04cf\u043e\u0440\u051b\u0455\u051d\u0445"
    "\u0443\u0433\u0475\u0410\u0412\u0421\u0415\u041d\u0406\u0408\u041a\u041c\u041e\u0420"
    "\u0405\u0422\u0425"
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03b1\u03bf\u03b9\u03bd\u03f2"
    "\u0251\u0131\u0280\u026a\u1d20\u1d00\u1d05\u1d0f\u1d04",
    "acdehijlopqswxyrvABCEHIJKMOPSTXABEZHIKMNOPTYXaoivcaiRIVADOC",
)
# Brackets of other shapes, read as the square brackets and parentheses they stand for.
_BRACKETS = str.maketrans(
    "\u3010\u3014\u3016\u3018\u301a\u27e6\u27ec\u2997\u2045\u298b"
    "\u3011\u3015\u3017\u3019\u301b\u27e7\u27ed\u2998\u2046\u298c"
    "\u2768\u276a\u2985\u2e28\u2769\u276b\u2986\u2e29",
    "[[[[[[[[[[]]]]]]]]]](((())))",
)
# Format characters (zero-width, bidi), combining marks and controls: nothing to see.
_INVISIBLE = frozenset({"Cf", "Mn", "Me", "Cc"})


@lru_cache(maxsize=4096)
def fold_char(char: str) -> str:
    """`char` as it reads: NFKC, without what is invisible, look-alike letters as Latin;
    any space is " ", any digit 0-9, any bracket `[`, `]`, `(` or `)` if it reads as one.
    Usually one character, none, or a few (NFKC: `\u2474` is `(1)`)."""
    kept = []
    for folded in unicodedata.normalize("NFKC", char):
        if folded.isspace():
            kept.append(" ")
        elif folded.isdecimal():
            kept.append(str(unicodedata.decimal(folded)))
        elif unicodedata.category(folded) not in _INVISIBLE:
            kept.append(folded)
    return "".join(kept).translate(_LOOKALIKES).translate(_BRACKETS)
