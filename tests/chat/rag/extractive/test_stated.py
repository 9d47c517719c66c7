"""A question for a setting's value reads the noun it asks the value of, and the sentences
that print that noun beside a value answer it first."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answer_type import NUMBER, AnswerType, answer_kind
from chat.rag.extractive.answerer import compose
from chat.rag.extractive.stated import states
from ingest.index.lexical.analysis import terms
from tests.support.worlds.sources import make_source

DISTILLATION = "1503.02531"
TEMPERATURE = frozenset(terms("temperature"))


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("What temperature do they use?", "temperature"),
        ("What chunk length does RETRO use?", "length"),
        ("What is the chunk length of RETRO?", "length"),
        ("What dropout rate does the Transformer use?", "rate"),
    ],
)
def test_a_question_for_a_settings_value_asks_a_number_of_its_noun(
    question: str, noun: str
) -> None:
    answer = AnswerType.parse(question)

    assert answer_kind(question) == NUMBER
    assert answer.setting == frozenset(terms(noun))


def test_a_question_for_a_name_asks_no_settings_value() -> None:
    answer = AnswerType.parse("What optimizer do they use?")

    assert answer.setting == frozenset()


@pytest.mark.parametrize(
    "sentence",
    [
        "The soft targets produced by the large net at a temperature of 20.",
        "Temperatures in the range 2.5 to 4 worked significantly better.",
        "For the distillation we tried temperatures of (1, 2, 5, 10) and used a weight of 0.5.",
    ],
)
def test_a_sentence_printing_the_noun_beside_a_value_states_it(sentence: str) -> None:
    assert states(sentence, TEMPERATURE)


@pytest.mark.parametrize(
    "sentence",
    [
        "After it has been trained it uses a temperature of 1.",
        "The same high temperature is used when training the distilled model.",
        "The temperature is given in Table 2 and Section 3.",
        "We trained 10 separate models; the temperature was high.",
    ],
)
def test_a_default_a_label_or_a_far_number_states_no_value(sentence: str) -> None:
    assert not states(sentence, TEMPERATURE)


def test_the_sentences_stating_the_temperature_lead_the_answer() -> None:
    about = make_source(
        1,
        DISTILLATION,
        "Raising the temperature produces a softer probability distribution over "
        "classes. The same high temperature is applied when training each of the 30 small models.",
    )
    stated = make_source(
        2,
        DISTILLATION,
        "This net achieved 67 test errors. The smaller net matched the soft targets of the "
        "large net at a temperature of 20.",
    )

    answer = compose("What temperature do they use?", [about, stated], max_sentences=1)

    assert "temperature of 20" in answer.sentences[0].text
