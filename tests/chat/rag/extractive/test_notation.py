"""Greek letters a question spells out are searched and scored as papers print them, and
symbols an algorithm box defines are asked for by their descriptions' words."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import compose
from chat.rag.extractive.notation import (
    asked_symbols,
    boxed_notation,
    notation_stated,
    with_symbols,
)
from tests.chat.rag.extractive.conftest import source
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


BERT_PASSAGES = [
    ("1810.04805#f3", "BERT is a multi-layer bidirectional Transformer encoder."),
    ("1810.04805#f17", "In this work, we denote the number of layers (i.e., Transformer "
                       "blocks) as L, the hidden size as H, and the number of self-attention "
                       "heads as A."),
    ("1810.04805#f18", "We primarily report results on two model sizes: BERT-base (L=12, "
                       "H=768, A=12) and BERT-large (L=24, H=1024, A=16)."),
]  # fmt: skip


def test_the_passages_setting_and_defining_the_counted_letter_are_found() -> None:
    found = notation_stated("layer", ["BERT-large"], BERT_PASSAGES)
    other = notation_stated("layer", ["ViT-Huge"], BERT_PASSAGES)
    undefined = notation_stated("token", ["BERT-large"], BERT_PASSAGES)

    assert found == ["1810.04805#f18", "1810.04805#f17"]
    assert other == []
    assert undefined == []


def test_given_both_passages_the_sentence_setting_the_counted_letter_answers() -> None:
    distractor = "All layers of BERT-large have been fine-tuned, and BERT-large performs well."
    sources = [
        source(1, "1810.04805", distractor),
        *(source(n, "1810.04805", text) for n, (_, text) in enumerate(BERT_PASSAGES, 2)),
    ]

    answer = compose("How many layers does BERT-large have?", sources)

    assert answer.sentences[0].text.startswith("We primarily report results on two model")
    assert "L=24" in "".join(answer.pieces())
