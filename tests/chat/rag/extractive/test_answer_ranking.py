"""Which sentence the extractive answer puts first: the one that answers, the number or
the count asked for, the definition, the name in its own case."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chat.rag.extractive.answerer import compose, extract_answer
from chat.rag.extractive.sentences import source_sentences
from chat.rag.extractive.shaping import opens_well
from tests.chat.rag.extractive.conftest import source

pytestmark = pytest.mark.timeout(120)


def test_the_sentence_that_answers_beats_distractors() -> None:
    sources = [
        source(1, "2401.00001", "Transformers are popular. The model is trained on many GPUs."),
        source(
            2,
            "2401.00002",
            "We study retrieval. Our retriever reaches 81.2% top-20 accuracy on Natural "
            "Questions. Retrieval is hard for rare entities.",
        ),
        source(3, "2401.00003", "Natural language is ambiguous. Questions can be long."),
    ]

    pieces = extract_answer(
        "What top-20 accuracy does the retriever reach on Natural Questions?", sources
    )

    assert pieces[0].startswith("Our retriever reaches 81.2% top-20 accuracy")
    assert pieces[0].rstrip().endswith("[arXiv:2401.00002]")


def test_number_question_prefers_the_sentence_with_a_number() -> None:
    sources = [
        source(1, "2401.00001", "Specialist models are trained on confusable classes of JFT. "
               "We trained 61 specialist models on JFT with 300 classes each."),
        source(2, "2401.00002", "Specialist models for JFT are cheap to train in parallel."),
        source(3, "2401.00003", "Ensembles of specialist models can overfit on JFT."),
    ]  # fmt: skip

    pieces = extract_answer("How many specialist models were trained for JFT?", sources,
                            max_sentences=1)  # fmt: skip

    assert pieces == [
        "We trained 61 specialist models on JFT with 300 classes each. [arXiv:2401.00001]"
    ]


def test_a_how_many_question_prefers_the_sentence_giving_that_count() -> None:
    sources = [
        source(1, "2401.00001",
               "The unseen categories of the ILSVRC detection split are rare ones. "
               "Among 200 object categories, we select 23 categories as unseen."),
        source(2, "2401.00002", "We evaluate on the ILSVRC detection split of seen classes."),
        source(3, "2401.00003", "Our ILSVRC detection split follows earlier work."),
    ]  # fmt: skip

    pieces = extract_answer(
        "In the ILSVRC detection split, how many categories were held out as unseen?",
        sources,
        max_sentences=1,
    )

    assert pieces == [
        "Among 200 object categories, we select 23 categories as unseen. [arXiv:2401.00001]"
    ]


DEFINITION_SOURCES = [
    source(1, "2007.01282", "Our model processes passages independently in the encoder but "
           "jointly in the decoder. FiD scales with the number of retrieved passages, which "
           "makes FiD accurate on open-domain question answering benchmarks."),
    source(2, "2401.00002", "FiD is used as a reader by many retrieval-augmented systems that "
           "answer open-domain questions."),
    source(3, "2007.01282", "We refer to this approach as Fusion-in-Decoder (FiD). Each "
           "passage is encoded with its question."),
]  # fmt: skip


def test_the_defining_sentence_comes_first_for_a_stand_for_question() -> None:
    pieces = extract_answer("What does FiD stand for?", DEFINITION_SOURCES)

    assert pieces[0].startswith("We refer to this approach as Fusion-in-Decoder (FiD).")
    assert pieces[0].rstrip().endswith("[arXiv:2007.01282]")
    assert len(pieces) > 1


def test_the_sentence_that_says_what_it_is_comes_first_for_a_what_is_question() -> None:
    sources = [
        source(1, "2112.04426", "Retrieval helps language models. RETRO improves results on "
               "Wikitext103 and the Pile with RETRO retrieval over its database."),
        source(2, "2112.04426", "Retro is trained on MassiveText. RETRO is a retrieval-enhanced "
               "autoregressive language model that conditions on retrieved chunks."),
    ]  # fmt: skip

    pieces = extract_answer("What is RETRO?", sources)

    assert pieces[0].startswith("RETRO is a retrieval-enhanced autoregressive language model")


def test_a_name_matches_only_in_its_own_case() -> None:
    sources = [
        source(1, "2401.00001", "Zero-shot transfer solves the problem of missing labels with "
               "zero examples."),
        source(2, "1910.02054", "ZeRO removes the memory redundancies of data-parallel "
               "training, so that models with a trillion parameters fit."),
        source(3, "2401.00003", "Zero padding solves the problem of variable lengths."),
    ]  # fmt: skip

    pieces = extract_answer("What problem does ZeRO solve?", sources)

    assert len(pieces) == 1
    assert pieces[0].startswith("ZeRO removes the memory redundancies")


def test_a_name_with_a_typographic_possessive_is_the_name() -> None:
    sources = [
        source(1, "2401.00001", "Our encoder encodes each passage into a sparse vector."),
        source(2, "2004.04906", "DPR encodes each passage into a dense vector."),
        source(3, "2401.00003", "Wikipedia is split into sections by its editors."),
    ]

    pieces = extract_answer("How does DPR\u2019s encoder encode each passage?", sources)

    assert pieces[0].startswith("DPR encodes each passage into a dense vector.")


def test_the_best_sentence_leads_then_its_paper_then_the_others() -> None:
    sources = [
        source(1, "2401.00001", "A draft model proposes tokens for speculative decoding, which "
               "the target model accepts or rejects while decoding. Speculative decoding speeds "
               "up decoding because the target model checks all the draft tokens in one pass."),
        source(2, "2401.00002", "Speculative decoding speeds up decoding of large models "
               "without changing their output distribution."),
        source(3, "2401.00003", "Beam search keeps several hypotheses at every step. Greedy "
               "search keeps the most likely one. Sampling draws each token at random."),
    ]  # fmt: skip

    pieces = extract_answer("How does speculative decoding speed up decoding?", sources)

    assert [p.split(" ", 2)[:2] for p in pieces] == [
        ["Speculative", "decoding"],
        ["A", "draft"],
        ["Speculative", "decoding"],
    ]
    assert pieces[0].startswith("Speculative decoding speeds up decoding")
    assert pieces[1].endswith("[arXiv:2401.00001]\n\n")


def test_words_typed_apart_are_found_where_a_source_prints_them_joined() -> None:
    """ "deep seek" is DeepSeek: the source that prints it leads, and no lead line says
    that nothing mentions "seek"."""
    sources = [
        source(1, "2501.00002", "DeepSeek-R1 distils long reasoning traces into small models."),
        source(2, "2501.00001", "Deep networks learn reasoning shortcuts."),
    ]

    answer = compose("deep seek r1 reasoning", sources)

    assert answer.lead == ""
    assert [s.source.id for s in answer.sentences] == ["2501.00002"]


def test_of_two_papers_giving_a_long_form_the_better_ranked_ones_leads() -> None:
    sources = [
        source(1, "2305.13048", "We propose a novel model architecture, Receptance Weighted Key "
               "Value (RWKV), that combines parallel training with efficient inference.",
               kind="abstract"),
        source(2, "2511.09878", "We propose RWKV-PCSSC, a lightweight point cloud completion "
               "network inspired by the Receptance Weighted Key Value (RWKV) mechanism for "
               "point cloud completion with key value stages.", kind="abstract"),
    ]  # fmt: skip

    pieces = extract_answer("What does RWKV stand for?", sources)

    assert pieces[0].startswith("We propose a novel model architecture, Receptance Weighted")
    assert "[arXiv:2305.13048]" in pieces[0]


def test_a_sentence_that_names_arxiv_may_open_an_answer_but_an_arxiv_stamp_may_not() -> None:
    text = "For the 1.5M papers whose LaTeX source is on arXiv, we also provide LaTeX parses."
    (sentence,) = source_sentences(source(1, "2401.00004", text), 0)
    stamp = replace(sentence, text="arXiv:2401.00004v2 [cs.CL] 24 May 2024")

    assert (opens_well(sentence), opens_well(stamp)) == (True, False)
