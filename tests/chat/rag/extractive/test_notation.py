"""Greek letters a question spells out are searched and scored as papers print them."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import compose
from chat.rag.extractive.notation import with_symbols
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
