"""Text that can be stored, tokenised and sent on: valid Unicode, no lone surrogates.

JSON lets a string carry an escaped half of a surrogate pair (`"\\ud800"`),
and Python keeps it as a lone surrogate that cannot be encoded as UTF-8: the
tokenizer, the database and the JSON encoder all fail on it later, far from
the input. Every text that comes in (a metadata record, a question) is
checked here, once, where it enters.
"""

from __future__ import annotations

import re

from ingest.errors import PaperchatError

_SURROGATE_RE = re.compile("[\ud800-\udfff]")


class InvalidText(PaperchatError, ValueError):
    """A text that is not valid Unicode; the message names where the first bad character is."""


def check_text(text: str, what: str) -> str:
    """`text` unchanged, or InvalidText naming `what` and the first lone surrogate in it."""
    found = _SURROGATE_RE.search(text)
    if found is not None:
        raise InvalidText(
            f"{what} is not valid Unicode: a lone surrogate U+{ord(found.group()):04X}"
            f" at character {found.start() + 1}"
        )
    return text
