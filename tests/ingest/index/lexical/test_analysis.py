from __future__ import annotations

import pytest
import Stemmer

from ingest.index.lexical import analysis
from ingest.index.lexical.analysis import STOP_WORDS, terms, words


def test_words_fold_accents_and_ligatures_and_keep_apostrophes() -> None:
    text = "Caf\u00e9 na\u00efve \ufb01ne-tuning Don\u2019t R\u00c9SUM\u00c9"

    folded = words(text)

    assert folded == ["cafe", "naive", "fine", "tuning", "don't", "resume"]


def test_ascii_text_gives_the_same_terms_as_its_accented_spelling() -> None:
    plain = terms("cafe naive fine-tuning resume")

    accented = terms("caf\u00e9 na\u00efve \ufb01ne-tuning r\u00e9sum\u00e9")

    assert accented == plain == ["cafe", "naiv", "fine", "tune", "resum"]


def test_kept_stems_give_the_terms_stemming_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "The model\u2019s retrievers don't stop: Naïve RETRIEVAL of passages, retrieved again."
    fresh = [
        stem.replace("'", "")
        for stem in Stemmer.Stemmer("english").stemWords(
            [w for w in words(text) if w not in STOP_WORDS]
        )
    ]

    first = terms(text)
    kept = terms(text)
    monkeypatch.setattr(analysis, "KEPT_STEMS", 0)
    monkeypatch.setattr(analysis, "_stems", {})
    unkept = terms(text)

    assert first == kept == unkept == fresh
    assert "retriev" in kept
    assert kept[0] == "model"
