from __future__ import annotations

from ingest.index.lexical.analysis import terms, words


def test_words_fold_accents_and_ligatures_and_keep_apostrophes() -> None:
    text = "Caf\u00e9 na\u00efve \ufb01ne-tuning Don\u2019t R\u00c9SUM\u00c9"

    folded = words(text)

    assert folded == ["cafe", "naive", "fine", "tuning", "don't", "resume"]


def test_ascii_text_gives_the_same_terms_as_its_accented_spelling() -> None:
    plain = terms("cafe naive fine-tuning resume")

    accented = terms("caf\u00e9 na\u00efve \ufb01ne-tuning r\u00e9sum\u00e9")

    assert accented == plain == ["cafe", "naiv", "fine", "tune", "resum"]
