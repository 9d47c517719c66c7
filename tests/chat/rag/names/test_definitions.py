"""Questions about what a name means, and the sentences that define it."""

from __future__ import annotations

import pytest

from chat.rag.names.definitions import asked_term, defines, find_name

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What does FiD stand for?", "FiD"),
        ("what does ZeRO stand for", "ZeRO"),
        ("What is FiD short for?", "FiD"),
        ("What is RAG an abbreviation for?", "RAG"),
        ("What is RETRO?", "RETRO"),
        ("What are LLMs?", "LLMs"),
        ("What is the Transformer?", "Transformer"),
        # A name with the kind of thing it is after it asks about the name.
        ("What is the Adam optimizer?", "Adam"),
        ("What are the OPT models?", "OPT"),
        ("What is a language model?", "language model"),
        # A hyphenated name's parts are no asking words ("in" of Fusion-in-Decoder).
        ("What is Fusion-in-Decoder?", "Fusion-in-Decoder"),
        ("What is mixture-of-experts?", "mixture-of-experts"),
        ("what is retrieval-augmented generation", "retrieval-augmented generation"),
        ("Define RLHF", "RLHF"),
        ("What is the meaning of MoE?", "MoE"),
        ("What is meant by chunked cross-attention?", "chunked cross-attention"),
        # A leading clause says where to look; the question proper follows it.
        ("In the InstructGPT paper, what does RLHF stand for?", "RLHF"),
        ("According to the ZeRO paper, what is DP short for?", "DP"),
        ("In which paper is RAG defined?", ""),
        ("BM25 stands for?", "BM25"),
        ("What is the learning rate used in BERT?", ""),
        ("What is the difference between FiD and RAG?", ""),
        ("How does RETRO work?", ""),
        ("What problem does ZeRO solve?", ""),
    ],
)
def test_the_asked_term_is_found_in_definition_questions_only(question: str, term: str) -> None:
    found = asked_term(question)

    assert found == term


@pytest.mark.parametrize(
    ("sentence", "term", "long_form"),
    [
        ("We develop the Zero Redundancy Optimizer (ZeRO), a novel memory optimizer.", "ZeRO",
         "Zero Redundancy Optimizer"),
        ("Fusion-in-Decoder (FiD) processes passages independently.", "FiD", "Fusion-in-Decoder"),
        ("FiD (Fusion-in-Decoder) processes passages independently.", "FiD", "Fusion-in-Decoder"),
        ("We introduce Bidirectional Encoder Representations from Transformers (BERT).", "BERT",
         "Bidirectional Encoder Representations from Transformers"),
        ("Large language models (LLMs) are trained on web text.", "LLMs",
         "Large language models"),
        ("We enhance models with a Retrieval-Enhanced Transformer (RETRO).", "RETRO",
         "Retrieval-Enhanced Transformer"),
        ("The Fusion-in-Decoder (FiD) model encodes each passage.", "Fusion-in-Decoder",
         "Fusion-in-Decoder"),
    ],
)  # fmt: skip
def test_an_acronym_beside_its_long_form_is_a_definition(
    sentence: str, term: str, long_form: str
) -> None:
    definition = defines(sentence, term)

    assert (definition.strength, definition.long_form) == (3, long_form)


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        ("RETRO is a retrieval-enhanced autoregressive language model.", "RETRO"),
        ("We propose RETRO, a model that retrieves chunks from a large database.", "RETRO"),
        ("In this paper we present ZeRO, which removes memory redundancies.", "ZeRO"),
        ("Chunked cross-attention is an operation that mixes retrieved chunks.",
         "chunked cross-attention"),
        ("The Transformer, a model built on attention alone, replaces recurrence.",
         "Transformer"),
        # What is introduced, then its name set off after it.
        ("We propose a new simple network architecture, the Transformer, based solely on "
         "attention mechanisms.", "Transformer"),
    ],
)  # fmt: skip
def test_a_sentence_that_says_what_the_term_is_defines_it(sentence: str, term: str) -> None:
    definition = defines(sentence, term)

    assert definition.strength == 2


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        ("Zero-shot (ZS) transfer needs no labelled data.", "ZeRO"),  # the case of a name counts
        ("We compare against zero redundancy baselines at scale.", "ZeRO"),
        ("Our results beat RETRO on three benchmarks by a wide margin.", "RETRO"),
        ("Fast inference (FI) matters for deployment.", "FiD"),
        ("Then, RETRO is trained on the same data as the baseline.", "RETRO"),
        # A longer name that ends with the term is another method (a namesake's).
        ("In this work, we propose Fast Quiet STaR, a more efficient framework.", "STaR"),
        ("We introduce Quiet STaR, which learns to think before speaking.", "STaR"),
        # A name set off after what a paper uses, not what it introduces.
        ("We use a standard architecture, the Transformer, as our encoder.", "Transformer"),
    ],
)
def test_a_mere_mention_is_not_a_definition(sentence: str, term: str) -> None:
    definition = defines(sentence, term)

    assert definition.strength == 0


@pytest.mark.parametrize(
    ("sentence", "name", "found"),
    [
        ("We present Retrieval-Enhanced Transformers (Retro), a method.", "RETRO", "Retro"),
        ("ZeRO removes memory redundancies.", "ZeRO", "ZeRO"),
        ("Two FiDs were trained on each dataset.", "FiD", "FiDs"),
        ("We report FID and KID on four datasets.", "FiD", None),
        ("Zero padding keeps the lengths equal.", "ZeRO", None),
        ("The zero-shot setting needs no labels.", "ZeRO", None),
    ],
)
def test_a_name_is_found_in_its_case_or_capitalised_never_as_a_word(
    sentence: str, name: str, found: str | None
) -> None:
    match = find_name(sentence, name)

    assert (match.group(0) if match else None) == found


def test_the_long_form_of_an_all_capital_name_is_found_in_small_capitals() -> None:
    definition = defines("We present Retrieval-Enhanced Transformers (Retro), a method.", "RETRO")

    assert (definition.strength, definition.long_form) == (3, "Retrieval-Enhanced Transformers")


def test_a_name_given_to_a_long_form_defines_its_initials_though_never_printed() -> None:
    sentence = (
        "The model thus performs evidence fusion in the decoder only, and we refer to it as"
        " Fusion-in-Decoder."
    )

    assert defines(sentence, "FiD").long_form == "Fusion-in-Decoder"
    assert defines(sentence, "FiD").strength == 3
    assert defines(sentence, "FID").strength == 0  # Frechet Inception Distance is another name
    assert defines("We evaluate Fusion-in-Decoder on TriviaQA.", "FiD").strength == 0


def test_words_of_a_term_printed_joined_define_it() -> None:
    """People type "flash attention"; the paper prints "FlashAttention"."""
    joined = "We propose FlashAttention, an IO-aware exact attention algorithm."
    hyphenated = "We propose Flash-Attention, an IO-aware exact attention algorithm."
    apart = "Attention is fast: a flash of insight."

    assert defines(joined, "flash attention").strength == 2
    assert defines(hyphenated, "flash attention").strength == 2
    assert defines(apart, "flash attention").strength == 0


@pytest.mark.parametrize(
    ("sentence", "term", "long_form"),
    [
        # A long form set beside the name after a comma, or a title's colon.
        (
            "To address these issues, we introduce S2ORC, the Semantic Scholar Open Research"
            " Corpus, a large collection of academic papers.",
            "S2ORC",
            "Semantic Scholar Open Research Corpus",
        ),
        ("S2ORC: The Semantic Scholar Open Research Corpus", "S2ORC",
         "Semantic Scholar Open Research Corpus"),
        # A letter's count written as a digit after it.
        ("We release the Semantic Scholar Open Research Corpus (S2ORC).", "S2ORC",
         "Semantic Scholar Open Research Corpus"),
        ("Data sit in an Amazon Web Services (AWS) bucket.", "AWS", "Amazon Web Services"),
        # A long form set in quotes, single or double.
        ("The first part is the \u2018Sparse Routing Layer\u2019 (SRL), a layer.", "SRL",
         "Sparse Routing Layer"),
        ('The first part is the "Sparse Routing Layer" (SRL), a layer.', "SRL",
         "Sparse Routing Layer"),
    ],
)  # fmt: skip
def test_long_forms_apposed_or_counted_are_read(sentence: str, term: str, long_form: str) -> None:
    assert defines(sentence, term).long_form == long_form


def test_names_listed_after_a_comma_are_no_long_form() -> None:
    assert defines("Results on NQ, TriviaQA and WebQuestions.", "NQ").long_form == ""
