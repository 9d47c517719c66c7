from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import compose
from chat.rag.extractive.subject import possessive_subject
from chat.rag.sources import Source
from tests.chat.rag.extractive.conftest import source

QUESTION = "Which CNN architecture did Adam's CIFAR-10 experiment use?"
ADAM = "1412.6980"


def _sources() -> list[Source]:
    return [
        source(1, "2603.17098", "We evaluate the proposed approach on CIFAR-10, CIFAR-100, "
               "and MNIST-rot datasets."),
        source(2, ADAM, "We show the effectiveness of Adam in deep CNNs. Our CNN architecture "
               "has three alternating stages of 5x5 convolution filters and 3x3 max pooling "
               "with stride of 2 that are followed by a fully connected layer of 1000 "
               "rectified linear hidden units (ReLU's)."),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        (QUESTION, "Adam"),
        ("What is PaLM\u2019s vocabulary size?", "PaLM"),
        ("Which optimizer trains Rahman et al.'s detection network?", ""),  # a byline
        ("Do DPR's and RAG's retrievers share an encoder?", ""),  # two subjects
        ("What does the model's loss add?", ""),  # no name
    ],
)  # fmt: skip
def test_the_name_a_question_writes_in_the_possessive_is_its_subject(
    question: str, subject: str
) -> None:
    assert possessive_subject(question) == subject


def test_the_possessive_subjects_own_paper_leads_over_another_on_the_same_dataset() -> None:
    answer = compose(QUESTION, _sources(), named={ADAM})

    assert answer.sentences[0].source.id == ADAM
    assert "three alternating stages" in answer.sentences[0].text


def test_without_the_subjects_own_paper_the_order_is_the_searchs() -> None:
    answer = compose(QUESTION, _sources()[:1], named={ADAM})

    assert answer.sentences[0].source.id == "2603.17098"
