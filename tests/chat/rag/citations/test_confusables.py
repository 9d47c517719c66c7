from __future__ import annotations

import pytest

from chat.rag.citations.confusables import fold_char

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize(
    ("char", "reads"),
    [
        ("a", "a"),
        ("\uff3b", "["),
        ("\uff1a", ":"),
        ("\uff41", "a"),
        ("\u2474", "(1)"),
        ("\u0430", "a"),
        ("\u0425", "X"),
        ("\u03bd", "v"),
        ("\u1d20", "V"),
        ("\u200b", ""),
        ("\u200d", ""),
        ("\u00ad", ""),
        ("\u202e", ""),
        ("\u0301", ""),
        ("\u3000", " "),
        ("\n", " "),
        ("\u4e2d", "\u4e2d"),
        ("\u3010", "["),
        ("\u3015", "]"),
        ("\u27e6", "["),
        ("\ufe3b", "["),
        ("\u2768", "("),
        ("\uff09", ")"),
        ("\u0669", "9"),
        ("\U0001d7d7", "9"),
        ("\u00a0", " "),
    ],
)
def test_each_character_reads_as_what_it_looks_like(char: str, reads: str) -> None:
    assert fold_char(char) == reads
