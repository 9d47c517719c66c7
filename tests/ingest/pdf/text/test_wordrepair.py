from __future__ import annotations

from collections import Counter

import pytest

from ingest.pdf.text.wordrepair import (
    SOFT_HYPHEN,
    Vocabulary,
    join_hyphenation,
    ligature_gaps,
    restore_glyph_ligatures,
    restore_ligature_gaps,
)

pytestmark = pytest.mark.timeout(10)

DOCUMENT = (
    "We study representation learning with a repre-\nsentation of text. A meta-\n"
    "learning rule and meta-learning again."
)


def test_line_end_hyphen_joins_a_known_word_and_keeps_a_known_compound() -> None:
    stats: Counter[str] = Counter()
    lines = ["with a repre-", "sentation of text. A meta-", "learning rule"]

    joined = join_hyphenation(lines, Vocabulary([DOCUMENT]), stats)

    assert joined == ["with a representation", "of text. A meta-learning", "rule"]
    assert (stats["words_hyphen_joined"], stats["hyphen_compounds_kept"]) == (1, 1)


def test_soft_hyphen_at_a_line_end_pulls_up_the_next_word_and_leaves_its_line_empty() -> None:
    stats: Counter[str] = Counter()

    joined = join_hyphenation([f"a con{SOFT_HYPHEN}", "vergence"], Vocabulary([]), stats)

    assert joined == ["a convergence", ""]
    assert stats["words_soft_hyphen_joined"] == 1


def test_vocabulary_keeps_the_hyphen_between_two_words_it_knows() -> None:
    vocabulary = Vocabulary(["batch normalizing and sequence aligned"])

    assert not vocabulary.join("sequence", "aligned")
    assert vocabulary.join("con", "vergence")


def test_words_whose_ligature_vanished_are_closed_up_with_their_suffix() -> None:
    stats: Counter[str] = Counter()
    gaps = ligature_gaps(Vocabulary([DOCUMENT]))

    text = restore_ligature_gaps("are e cient and di erent, e ciently.", gaps, stats)

    assert text == "are efficient and different, efficiently."
    assert stats["words_ligature_gap_restored"] == 3


def test_unmapped_ligature_glyphs_become_letters_only_in_known_words() -> None:
    text = "de\ue00cned \x0crst x\x0cy"

    assert restore_glyph_ligatures(text) == ("defined first x\x0cy", 2)
