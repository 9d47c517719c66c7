"""WordNet's words for a question's everyday words in the BM25 query: weighed below the
question's own, capped, in the sense its best passages use, and off without the database."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.expansion import SynonymsConfig, synonym_terms
from chat.rag.retrieval.wordnet.database import Related
from chat.wiring import Wiring

DOCUMENTS = 10_000
# What WordNet gives for each everyday word, first senses first.
RELATED = {
    "photos": [
        Related("photograph", "synonym", 0),
        Related("image", "synonym", 0),
        Related("exposure", "synonym", 0),
        Related("representation", "hypernym", 0),
    ],
    "spotting": [Related("detection", "synonym", 1), Related("staining", "synonym", 0)],
    "cheap": [Related("inexpensive", "synonym", 0), Related("low-cost", "similar", 0)],
}
# Chunks holding each stem: "imag" is common in the papers, "stain" rare, "exposur" in one.
FREQUENCY = {
    "photograph": 120,
    "imag": 400,
    "exposur": 1,
    "represent": 300,
    "detect": 350,
    "stain": 30,
    "inexpens": 40,
    "low": 250,
    "cost": 300,
}
PLAIN = {"photo": "photos", "spot": "spotting", "cheap": "cheap"}


def _related(word: str) -> Sequence[Related]:
    return RELATED.get(word, [])


def _frequency(stems: Sequence[str]) -> Mapping[str, int]:
    return {stem: FREQUENCY.get(stem, 0) for stem in stems}


def _terms(config: SynonymsConfig, context: Mapping[str, int] | None = None) -> dict[str, float]:
    return dict(synonym_terms(PLAIN, _related, _frequency, DOCUMENTS, config, context))


def test_added_words_weigh_less_than_the_questions_own_and_other_relations_less_still() -> None:
    found = _terms(SynonymsConfig(terms=20, per_word=5, context=0, weight=0.3))

    assert found["photograph"] == 0.3
    assert found["represent"] == 0.15  # a kind photos are of
    assert found["low"] == 0.15  # a similar word, not a synonym
    assert all(0 < weight < 1 for weight in found.values())
    assert "exposur" not in found  # in one chunk only: evidence of nothing


def test_a_weight_of_one_or_more_is_refused() -> None:
    with pytest.raises(ValueError, match="below 1"):
        SynonymsConfig(weight=1.0)


def test_the_words_added_are_capped_in_all_and_per_word() -> None:
    capped = _terms(SynonymsConfig(terms=4, per_word=5, context=0))
    per_word = _terms(SynonymsConfig(terms=20, per_word=1, context=0))

    assert len(capped) == 4
    assert len(per_word) == 3  # one for each everyday word


def test_each_everyday_word_gets_its_best_word_before_any_gets_a_second() -> None:
    found = set(_terms(SynonymsConfig(terms=3, per_word=2, context=0)))

    assert len(found & {"photograph", "imag", "represent"}) == 1
    assert len(found & {"detect", "stain"}) == 1
    assert len(found & {"inexpens", "low", "cost"}) == 1


def test_the_sense_the_best_passages_hold_wins_and_others_are_left_out() -> None:
    context = {"detect": 3, "imag": 5, "photograph": 1}

    found = _terms(SynonymsConfig(terms=20, per_word=5, context=10), context)

    assert set(found) == {"detect", "imag", "photograph"}
    assert "stain" not in found  # spotting's other sense: no passage speaks of stains


def test_no_words_when_off() -> None:
    assert _terms(SynonymsConfig(terms=0)) == {}


def test_without_the_database_retrieval_is_as_before(small_index: Wiring, tmp_path: Path) -> None:
    question = "How can a detector that spots hidden messages in photos run on weak hardware?"
    plain = small_index.retriever.with_config(RetrievalConfig(synonyms=SynonymsConfig(terms=0)))
    missing = small_index.retriever.with_config(
        RetrievalConfig(synonyms=SynonymsConfig(terms=6, wordnet_dir=str(tmp_path / "none")))
    )

    before = plain.retrieve(question)
    after = missing.retrieve(question)

    assert missing.synonyms(question, (), []) == []
    assert [c.chunk_id for c in after.ranked] == [c.chunk_id for c in before.ranked]
    assert math.isclose(after.ranked[0].score, before.ranked[0].score)
