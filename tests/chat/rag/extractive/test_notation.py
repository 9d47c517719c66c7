"""Greek letters a question spells out are searched and scored as papers print them, and
symbols an algorithm box defines are asked for by their descriptions' words."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import compose
from chat.rag.extractive.notation import asked_symbols, boxed_notation, with_symbols
from tests.support.worlds.sources import make_source


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What default epsilon does Adam use?", "What default epsilon does Adam use? ε"),
        ("Are beta1 and beta_2 tuned?", "Are beta1 and beta_2 tuned? β1 β2"),
        ("Is Beta-2 0.999?", "Is Beta-2 0.999? β2"),
        ("How is ε chosen, and epsilon?", "How is ε chosen, and epsilon?"),  # printed already
        ("How is the metadata stored?", "How is the metadata stored?"),  # no letter's name
        ("What does Phi-3 score?", "What does Phi-3 score?"),  # a name, not a symbol
    ],
)  # fmt: skip
def test_spelled_letters_are_added_as_printed(question: str, expected: str) -> None:
    assert with_symbols(question) == expected


def test_the_sentence_that_prints_the_symbol_answers_the_spelled_question() -> None:
    sources = [
        make_source(1, "2601.00001", "The weight of the auxiliary loss is tuned on validation."),
        make_source(2, "2601.00001", "We set λ = 0.1 in every run."),
    ]

    as_typed = compose("What value of lambda is used?", sources)
    spelled = compose(with_symbols("What value of lambda is used?"), sources)

    assert as_typed.sentences == ()
    assert [s.text for s in spelled.sentences] == ["We set λ = 0.1 in every run."]


_ADAM_BOX = (
    "Require: \u03b1: Stepsize\n"
    "Require: β1, β2 ∈ [0, 1): Exponential decay rates for the moment estimates\n"
    "Require: f(θ): Stochastic objective function with parameters θ\n"
    "m0 ← 0 (Initialize 1st moment vector)"
)


def test_symbols_an_algorithm_box_defines_are_read_with_their_descriptions() -> None:
    assert boxed_notation(_ADAM_BOX) == [
        (("\u03b1",), "Stepsize"),
        (("β1", "β2"), "Exponential decay rates for the moment estimates"),
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What default decay rates are recommended for the moment estimates?", ["β1", "β2"]),
        ("Which decay rates for the moment estimates, β1 and β2?", []),  # printed already
        ("What is the stochastic objective?", []),  # "f(θ)" is no symbol
        ("What decay does the learning rate follow?", []),  # one word of a description
    ],
)  # fmt: skip
def test_a_question_asks_for_the_symbols_whose_description_it_words(
    question: str, expected: list[str]
) -> None:
    assert asked_symbols(question, [_ADAM_BOX]) == expected


def test_the_sentence_giving_the_boxed_symbols_values_answers() -> None:
    sources = [
        make_source(1, "1412.6980", "The decay rates of the moment estimates matter most when "
                    "they are small, and the default estimates are biased."),
        make_source(2, "1412.6980", "Good default settings for the tested problems are "
                    "\u03b1 = 0.001, β1 = 0.9, β2 = 0.999."),
        make_source(3, "1412.6980", _ADAM_BOX, kind="table", section="Table"),
    ]  # fmt: skip

    answer = compose("What default decay rates are recommended for the moment estimates?", sources)

    assert "β1 = 0.9, β2 = 0.999" in "".join(answer.pieces())
