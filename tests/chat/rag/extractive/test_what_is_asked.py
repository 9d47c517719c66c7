"""What a question asks: the noun it asks a name of, a value asked in the possessive
("What is PaLM's vocabulary size?"), and the subject it writes in the possessive."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answer_type import NAME, NUMBER, AnswerType
from chat.rag.extractive.answerer import compose
from chat.rag.extractive.nouns import asks_which, of_form
from chat.rag.extractive.subject import possessive_subject
from chat.rag.sources import Source
from tests.chat.rag.extractive.conftest import source


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("What is PaLM's vocabulary size?", "What is the vocabulary size of PaLM?"),
        ("What are OPT's Adam beta values? β", "What are the Adam beta values of OPT? β"),
        ("What's GPT-3's context window?", "What is the context window of GPT-3?"),
        ("What is the vocabulary size of PaLM?", "What is the vocabulary size of PaLM?"),
        ("What does FiD's reader attend to?", "What does FiD's reader attend to?"),
    ],
)  # fmt: skip
def test_a_possessive_after_what_is_reads_as_the_noun_of_its_owner(
    question: str, read: str
) -> None:
    assert of_form(question) == read


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is PaLM's vocabulary size?", NUMBER),
        ("What is Adam's default epsilon?", NUMBER),
        ("What are OPT's Adam beta values?", NUMBER),
        ("What is ViT's patch size?", NUMBER),
    ],
)  # fmt: skip
def test_a_possessive_question_for_a_value_asks_a_value_not_a_definition(
    question: str, kind: str
) -> None:
    assert AnswerType.parse(question).kind == kind


def test_what_noun_does_asks_a_name_of_that_noun_as_which_does() -> None:
    assert asks_which("What activation does BERT use?")
    assert not asks_which("What does BERT stand for?")
    assert (
        AnswerType.parse("What activation does BERT use?").noun
        == AnswerType.parse("Which activation does BERT use?").noun
    )
    assert AnswerType.parse("What is the name of the optimizer?").kind == NAME


def test_a_possessive_question_for_a_value_is_not_answered_as_an_undefined_term() -> None:
    sources = [
        source(1, "2205.01068", "We keep Adam state in FP32, since we shard it across all "
               "hosts, while the model weights remained in FP16."),
        source(2, "2205.01068", "We use an AdamW optimizer with (β1, β2) set to (0.9, 0.95), "
               "and weight decay of 0.1."),
    ]  # fmt: skip

    answer = compose("What are OPT's Adam beta values?", sources, named={"2205.01068"})

    assert "defines" not in answer.lead


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
