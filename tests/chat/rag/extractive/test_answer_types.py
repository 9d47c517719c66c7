from __future__ import annotations

import re
from functools import cache

import pytest

from chat.rag.extractive.answer_type import (
    DATASET,
    DATE,
    DEFINITION,
    LONG_FORM,
    NAME,
    NUMBER,
    PERSON,
    SCORE,
    AnswerType,
    answer_kind,
    mentions_entity,
)
from chat.rag.extractive.answerer import compose
from chat.rag.sources import Source
from ingest.index.lexical.analysis import terms
from ingest.index.records import ParsedPdf
from ingest.pdf.parsing import parse_pdf
from tests.chat.rag.extractive.conftest import source
from tests.support.data import PDFS
from tests.support.worlds.sources import make_source

pytestmark = pytest.mark.timeout(120)

ADAM_PDF = "Adam_ A Method for Stochastic Optimization.pdf"


@cache
def _parsed(name: str) -> ParsedPdf:
    return parse_pdf(str(PDFS / name))


def _blocks(name: str, paper_id: str, *needles: str, first: int = 1) -> list[Source]:
    """The passages of a real PDF that print one of `needles`, as fulltext sources."""
    blocks = [b for b in _parsed(name).blocks if not b.is_references]
    held = [b for b in blocks if any(n in b.text for n in needles)]
    return [
        make_source(n, paper_id, b.text, kind="fulltext", title=paper_id, score=1.0 / n)
        for n, b in enumerate(held, start=first)
    ]


def _first_quoted(question: str, sources: list[Source]) -> str:
    answer = compose(question, sources)
    assert answer.sentences, question
    return answer.sentences[0].text


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many layers does BERT-large have?", NUMBER),
        ("What is the default learning rate of Adam?", NUMBER),
        ("What's the parameter count of ViT-Huge?", NUMBER),
        ("What share of the surveyed papers run no human evaluation?", NUMBER),
        ("What is the inner dimensionality of the feed-forward layers?", NUMBER),
        ("What is the detector proposed in Zhu et al.'s paper called?", NAME),
        ("What is the name of the library they share it in?", NAME),
        ("Which datasets is DPR evaluated on?", DATASET),
        ("What exact match does FiD achieve on TriviaQA?", SCORE),
        ("Which model is FiD built on?", NAME),
        ("Who proposed the Transformer?", PERSON),
        ("When was BERT published?", DATE),
        ("What does FiD stand for?", LONG_FORM),
        ("What is ZeRO short for?", LONG_FORM),
        ("What is ZeRO?", DEFINITION),
        ("Why does attention scale quadratically?", ""),
    ],
)
def test_a_question_reads_as_asking_for_its_kind_of_answer(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


def test_the_entities_of_a_question_are_its_names_not_its_asking_words() -> None:
    assert AnswerType.parse("How many layers does BERT-large have?").entities == ("BERT-large",)
    assert AnswerType.parse("What is the default learning rate of Adam?").entities == ("Adam",)
    assert AnswerType.parse("What exact match does FiD reach on TriviaQA?").entities == (
        "FiD",
        "TriviaQA",
    )


def test_a_compound_name_is_found_as_small_capitals_print_it() -> None:
    assert mentions_entity("BERTLARGE (L=24, H=1024, A=16)", "BERT-large")
    assert mentions_entity("the BERT large model", "BERT-large")
    assert not mentions_entity("the BERT-base model", "BERT-large")
    assert not mentions_entity("a lower FID score", "FiD")


def test_bert_large_layers_lead_with_the_sentence_that_gives_them() -> None:
    # The PDF sets "large" as a subscript of "BERT": it reads "BERT-large".
    sources = _blocks("1810.04805v2.pdf", "1810.04805", "L=24", "layers", "BERT-large")

    first = _first_quoted("How many layers does BERT-large have?", sources)

    assert "BERT-large (L=24" in first


def test_adams_default_learning_rate_is_the_sentence_with_its_value() -> None:
    sources = _blocks("Adam_ A Method for Stochastic Optimization.pdf", "1412.6980", "default")
    sources += _blocks("2203.14465v1.pdf", "2203.14465", "learning rate", first=len(sources) + 1)

    answer = compose("What is the default learning rate of Adam?", sources)

    assert "problems are \u03b1 = 0.001" in answer.sentences[0].text
    assert answer.sentences[0].source.id == "1412.6980"


def test_the_model_fid_is_built_on_is_named_first() -> None:
    # The FiD paper calls its model "Fusion-in-Decoder" and "our models", never "FiD".
    sources = _blocks("2007.01282v2.pdf", "2007.01282", "T5", "Fusion-in-Decoder")

    first = _first_quoted("Which model is FiD built on?", sources)

    assert "T5" in first


def _fid_table() -> Source:
    """FiD's Table 1 as a table source: header lines (a spanning header repeated in each of
    its columns) and rows, cells joined by " | ", the values as the PDF prints them."""
    rows = [
        "Model | NQ | TriviaQA | TriviaQA | SQuAD Open | SQuAD Open",
        " | EM | EM | EM | EM | F1",
        "DPR (Karpukhin et al., 2020) | 41.5 | 57.9 | - | 36.7 | -",
        "RAG (Lewis et al., 2020) | 44.5 | 56.1 | 68.0 | - | -",
        "Fusion-in-Decoder (base) | 48.2 | 65.0 | 77.1 | 53.4 | 60.6",
        "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1 | 56.7 | 63.2",
    ]
    return make_source(2, "2007.01282", "\n".join(rows), kind="table", section="Table 1")


def test_a_score_is_quoted_as_the_cell_under_its_row_and_column() -> None:
    sources = [
        *_blocks("2007.01282v2.pdf", "2007.01282", "TriviaQA")[:3],
        _fid_table(),
    ]

    answer = compose("What exact match does FiD achieve on TriviaQA?", sources)
    cells = [s.text for s in answer.sentences if s.is_row]

    assert cells, "no table cell quoted"
    assert "Fusion-in-Decoder (large) \u00b7 TriviaQA EM \u00b7 67.6" in cells[0]
    assert "DPR" not in cells[0]
    assert "Table 1: Fusion-in-Decoder" in "".join(answer.pieces())


def test_an_answer_does_not_open_with_a_footnote() -> None:
    # DPR's page 4 footnote "5However, Wang et al. (2019) also propose splitting ..."
    sources = _blocks("2004.04906v3.pdf", "2004.04906", "5However", "overlapping passages")

    first = _first_quoted("Do Wang et al. split documents into overlapping passages?", sources)

    assert re.match(r"\d[A-Z]", first) is None
    assert not first.startswith("5However")


def test_a_paper_without_the_answer_is_not_cited() -> None:
    sources = _blocks("1810.04805v2.pdf", "1810.04805", "L=24", "BERTLARGE")
    sources.append(
        make_source(
            len(sources) + 1,
            "2503.99999",
            "Large language models have many layers of abstraction. We study how many "
            "layers of review a large paper needs.",
            kind="abstract",
        )
    )

    answer = compose("How many layers does BERT-large have?", sources)

    assert {s.source.id for s in answer.sentences} == {"1810.04805"}


def test_a_number_question_never_hears_that_no_source_defines_it() -> None:
    sources = _blocks("1810.04805v2.pdf", "1810.04805", "L=24")

    answer = compose("What is the number of layers in BERT-large?", sources)

    assert "defines" not in answer.lead


def test_what_an_acronym_is_short_for_leads_with_its_long_form() -> None:
    sources = _blocks("2004.04906v3.pdf", "2004.04906", "Dense Passage Retriever", "DPR")[:6]

    first = _first_quoted("What is DPR short for?", sources)

    assert "Dense Passage Retriever (DPR)" in first


def test_a_table_without_a_header_quotes_the_row_that_names_the_entity() -> None:
    rows = [
        "DPR (Karpukhin et al., 2020) | 41.5 | 57.9 | - | 36.7 | -",
        "Fusion-in-Decoder (base) | 48.2 | 65.0 | 77.1 | 53.4 | 60.6",
        "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1 | 56.7 | 63.2",
    ]
    sources = [
        *_blocks("2007.01282v2.pdf", "2007.01282", "TriviaQA")[:3],
        make_source(4, "2007.01282", "\n".join(rows), kind="table", section="Table 1"),
    ]

    answer = compose("What exact match does FiD achieve on TriviaQA?", sources)

    assert [s.text for s in answer.sentences if s.is_row] == [rows[2]]


def test_a_value_under_a_heading_naming_another_method_is_not_the_asked_ones() -> None:
    # Adam's paper gives AdaMax's default (0.002) in "7.1 AdaMax" in the same words as
    # Adam's own (0.001); ranked first, the AdaMax passage still does not answer for Adam.
    blocks = [b for b in _parsed(ADAM_PDF).blocks if "Good default settings" in b.text]
    blocks.sort(key=lambda b: "AdaMax" not in b.section)
    sources = [
        make_source(n, "1412.6980", b.text, kind="fulltext", title="Adam", score=1.0 / n,
                    section=b.section)
        for n, b in enumerate(blocks, start=1)
    ]  # fmt: skip

    first = _first_quoted("What is the default learning rate of Adam?", sources)

    assert sources[0].section == "7.1 AdaMax"
    assert "\u03b1 = 0.001" in first


def test_a_sentence_under_a_heading_that_names_the_entity_answers_for_it() -> None:
    """ "Good default settings are a = 0.002" is AdaMax's, in the section "7.1 AdaMax"; a
    paper whose sentences print neither the name nor its heading does not answer."""
    adamax = make_source(
        1, "1412.6980", "Good default settings for the tested problems are a = 0.002.",
        kind="fulltext", section="7.1 AdaMax", page=8, title="Adam",
    )  # fmt: skip
    other = make_source(
        2, "2002.08909", "We pre-train for 200k steps with a batch size of 512 and the "
        "default optimizer.", kind="fulltext", section="4.3 Implementation", page=7,
        title="REALM",
    )  # fmt: skip

    answer = compose("What default step size does AdaMax use?", [other, adamax])

    assert [s.source.id for s in answer.sentences] == ["1412.6980"]
    assert "0.002" in answer.sentences[0].text


def test_a_studys_sample_size_answers_how_many_took_part() -> None:
    """ "(N=10)" is how many took part in the study it follows."""
    lab = source(1, "2302.07302", "A controlled lab study (N=10) focusing on paper discovery.")
    other = source(2, "2302.07302", "Participants of the lab study read papers, study by study.")

    answer = compose("How many participants did the lab study have?", [other, lab])

    assert "N=10" in answer.sentences[0].text


def test_a_byline_that_names_the_paper_is_no_entity_its_sentences_must_print() -> None:
    sources = [
        source(1, "1803.06049", "ILSVRC-2017 detection dataset used in the current work is "
               "quite huge and does not provide attribute annotations."),
        source(2, "1803.06049", "In this paper, we work on 500 dimensional unsupervised "
               "word2vec and GloVe vectors to describe the classes."),
    ]  # fmt: skip
    question = (
        "How many dimensions do the word2vec vectors have that Rahman et al.'s zero-shot "
        "object detection paper uses to describe classes?"
    )

    assert AnswerType.parse(question).entities == ()
    assert _first_quoted(question, sources).startswith("In this paper, we work on 500")


def test_the_paper_introducing_a_plain_capitalised_name_answers_for_it() -> None:
    """ "We propose ..., the Transformer," makes the paper the name's own: its sentence with
    the value leads, and a paper that only feeds inputs to a Transformer encoder is the
    name's user, not its authority."""
    sources = [
        source(1, "1706.03762", "The dimensionality of input and output is dmodel = 512, and "
               "the inner-layer has dimensionality dff = 2048."),
        source(2, "1706.03762", "We propose a new simple network architecture, the Transformer, "
               "based solely on attention mechanisms.", kind="abstract"),
        source(3, "2010.11929", "For the 1-dimensional and 2-dimensional positional embeddings, "
               "we add positional embeddings to the inputs before feeding the inputs to the "
               "Transformer encoder and at the beginning of each layer (shared between layers) "
               "with 3 feed-forward layers."),
    ]  # fmt: skip

    answer = compose(
        "What is the inner dimensionality of the Transformer's position-wise feed-forward layers?",
        sources,
    )

    assert answer.sentences[0].text.endswith("dimensionality dff = 2048.")


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("Which base language model does STaR fine-tune?", "model"),
        ("which reinforcement learning algorithm is it fine-tuned with?", "algorithm"),
        ("Which compressed full-text substring index does SEAL use?", "index"),
        ("Which paper introduced Batch Normalization?", ""),  # the paper frames the question
        ("What weight decay did the ResNet paper use?", ""),  # asks a value, not a name
        ("What is the detector proposed in Zhu et al.'s paper called?", "detector"),
        ("What is the name of the optimizer they train with?", "optimizer"),
    ],
)  # fmt: skip
def test_the_noun_a_which_question_asks_a_name_of(question: str, noun: str) -> None:
    assert AnswerType.parse(question).noun == frozenset(terms(noun))


def test_the_sentence_printing_a_name_beside_the_asked_noun_leads() -> None:
    sources = [
        source(1, "2112.04426", "We hypothesise that the retrieved neighbours are not helpful, "
               "due to the efficacy of the nearest-neighbour search."),
        source(2, "2112.04426", "We use the SCaNN library to achieve this."),
    ]  # fmt: skip

    answer = compose("which library do they use to search for the nearest neighbours?", sources)

    assert answer.sentences[0].text == "We use the SCaNN library to achieve this."
