"""The extractive answer's lead line: it says what the sources do not cover or do not
define, and is left out when they hold the word otherwise."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answerer import extract_answer
from tests.chat.rag.extractive.conftest import source

pytestmark = pytest.mark.timeout(120)


def test_the_lead_line_says_what_the_sources_do_not_cover() -> None:
    sources = [
        source(1, "2112.04426", "RETRO retrieves neighbours from a database of two trillion "
               "tokens. RETRO attends to the neighbours with chunked cross-attention."),
        source(2, "2401.00002", "Retrieval databases can be updated without retraining."),
    ]  # fmt: skip

    covered = extract_answer("How does RETRO use its database?", sources)
    partly = extract_answer("How does RETRO use its database for saffron and cardamom?", sources)

    assert not covered[0].startswith("Only part")
    assert partly[0] == (
        "Only part of the question is answered here: nothing below mentions "
        '"saffron" or "cardamom".\n\n'
    )
    assert partly[1:] == covered


def test_the_lead_line_says_when_no_source_defines_the_term() -> None:
    sources = [source(1, "2401.00001", "We compare our reader with FiD on three benchmarks.")]

    pieces = extract_answer("What does FiD stand for?", sources)

    assert pieces == [
        'None of the sources found defines "FiD"; this is what they say about it.\n\n',
        "We compare our reader with FiD on three benchmarks. [arXiv:2401.00001]",
    ]


def test_no_lead_line_for_a_word_the_sources_put_otherwise_or_a_name_they_hold() -> None:
    sources = [
        source(1, "1503.02531", "The distilled net achieved 74 test errors on the digits. "
               "Distillation transfers the knowledge of a large net to a small net."),
        source(2, "1503.02531", "We train on MNIST with 60,000 training cases."),
    ]  # fmt: skip

    pieces = extract_answer("How many test errors did the distilled small net get?", sources)
    named = extract_answer("How many test errors did the distilled net make on MNIST?", sources)

    assert pieces[0].startswith("The distilled net achieved 74 test errors")
    assert named[0].startswith("The distilled net achieved 74 test errors")


def test_the_surnames_of_a_byline_the_question_names_a_paper_by_are_not_missed() -> None:
    # The paper's own sentences never print its authors' names: "Zelikman et al.'s" says
    # which paper, not what it should say.
    sources = [
        source(1, "2203.14465", "We develop the Self-Taught Reasoner (STaR), a bootstrapping "
               "method for reasoning with rationales."),
    ]  # fmt: skip

    pieces = extract_answer(
        "What does STaR stand for in Zelikman et al.'s reasoning paper?", sources
    )

    assert not pieces[0].startswith("Only part"), pieces[0]
    assert "Self-Taught Reasoner" in pieces[0]


def test_a_greek_letter_the_question_spells_out_is_covered_where_a_source_prints_it() -> None:
    sources = [
        source(1, "1412.6980", "Good default values for Adam on the tested problems are "
               "\u03b11 = 0.001, \u03b21 = 0.9 and \u03b22 = 0.999."),
    ]  # fmt: skip

    printed = extract_answer("What value of beta2 does Adam use by default?", sources)
    missing = extract_answer("What value of gamma3 does Adam use by default?", sources)

    assert not printed[0].startswith("Only part"), printed[0]
    assert missing[0].startswith("Only part"), missing[0]
