"""Words of one family that the stemmer leaves apart are one when sentences are matched to a
question: "dimensions" is held by "500 dimensional vectors"."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import compose
from chat.rag.extractive.question import QuestionTerms
from chat.rag.extractive.sentences import source_sentences
from chat.rag.extractive.word_forms import family
from ingest.index.lexical.analysis import terms
from tests.chat.rag.extractive.conftest import source

pytestmark = pytest.mark.timeout(60)


def test_the_stems_of_one_word_family_share_a_key() -> None:
    (dimensions,) = terms("dimensions")
    (dimensional,) = terms("dimensional")
    (experiments,) = terms("experiments")
    (experimental,) = terms("experimental")

    assert dimensions != dimensional  # the stemmer alone leaves them apart
    assert family(dimensions) == family(dimensional)
    assert family(experiments) == family(experimental)
    assert family(terms("general")[0]) != family(terms("generation")[0])


def test_a_sentence_holds_the_question_term_it_prints_in_another_form() -> None:
    (sentence,) = source_sentences(
        source(1, "1803.06049", "We use 500 dimensional word2vec vectors to describe classes."), 0
    )
    query = QuestionTerms.parse("How many dimensions do the word2vec vectors have?")

    held = query.sentence_terms([sentence])[sentence]

    assert terms("dimensions")[0] in held


def test_the_sentence_that_states_the_number_in_another_word_form_leads() -> None:
    sources = [
        source(1, "2401.00001", "The 300 word2vec vectors are trained on 100 news texts, and "
               "the vectors of word2vec are then fine-tuned."),
        source(2, "1803.06049", "We use 500 dimensional word2vec vectors to describe the classes."),
    ]  # fmt: skip

    answer = compose("How many dimensions do the word2vec vectors have?", sources)

    assert answer.sentences[0].text.startswith("We use 500 dimensional")
