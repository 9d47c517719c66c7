"""Source sentences fit to quote: the splitting, and the debris that is never quoted."""

from __future__ import annotations

import pytest

from chat.rag.extractive.sentences import is_quotable, source_sentences, split_sentences
from tests.support.worlds.sources import make_source

pytestmark = pytest.mark.timeout(30)

PROSE = "The retriever encodes every passage once and keeps the vectors in an index."


def test_abbreviations_initials_and_decimals_do_not_end_sentences() -> None:
    text = (
        "Large models (e.g. GPT) help, as Smith et al. (2020) showed in Fig. 3 with a 3.5 "
        "point gain over J. Doe's baseline, i.e. a clear win. The dump is from Dec. 20, 2018 "
        "and Eq. 4 holds. A second sentence follows!"
    )

    sentences = split_sentences(text)

    assert sentences == [
        "Large models (e.g. GPT) help, as Smith et al. (2020) showed in Fig. 3 with a 3.5 "
        "point gain over J. Doe's baseline, i.e. a clear win.",
        "The dump is from Dec. 20, 2018 and Eq. 4 holds.",
        "A second sentence follows!",
    ]


def test_arxiv_margin_stamp_is_dropped_from_sentences() -> None:
    text = "We train the model. arXiv:1706.03762v7 [cs.CL] 2 Aug 2023 It converges fast."

    sentences = split_sentences(text)

    assert sentences == ["We train the model.", "It converges fast."]


@pytest.mark.parametrize(
    "debris",
    [
        # URLs and addresses
        "Our code is available at https://github.com/example/retro for everyone to use.",
        "The data can be downloaded from www.example.org/data under a permissive licence.",
        "Please write to the first author at jane.doe@example.edu with any questions.",
        # reference-list entries
        "Kelvin Guu, Kenton Lee, Zora Tung, Panupong Pasupat, and Ming-Wei Chang. REALM: "
        "Retrieval-augmented language model pre-training. In Proceedings of ICML, 2020.",
        "Lewis, P., Perez, E., Piktus, A. Retrieval-augmented generation for knowledge "
        "intensive tasks, 2020.",
        "[12] A. Vaswani and N. Shazeer. Attention is all you need. NeurIPS, 2017.",
        "Language models are few-shot learners. arXiv preprint arXiv:2005.14165, 2020.",
        # figure and table text, axis ticks
        "Figure 3: Scaling of the retrieval database from 1 billion to 2 trillion tokens.",
        "Table 2. Results on the test sets of Natural Questions and TriviaQA for all models.",
        "0.1 0.2 0.5 1.0 2.0 5.0 Accuracy (%) 10 20 30 40 50 Tokens seen.",
        "System Test Frame Accuracy WER Baseline 58.9% 10.9% 10xEnsemble 61.1% 10.7% Table 1: "
        "Frame classification accuracy and WER of the distilled single model.",
        # code and equations
        "for i in range(n): scores[i] = model.forward(x[i]) + self.bias; total += scores[i].",
        "The loss is L = -log p(y | x) + \u03bb ||\u03b8||^2 = \u2211 l(x, y) + r(\u03b8).",
        "Let x = W h + b, y = \u03c3(x), and z = y \u00b7 v + c with h \u2208 R^d and d \u2264 k.",
        # headings, bylines, affiliations
        "Improving Language Models By Retrieving From Trillions Of Tokens.",
        "Department of Computer Science, Stanford University, Stanford, California.",
        "Equal contribution, listed in alphabetical order by the last names of the team.",
    ],
)
def test_debris_is_not_quotable(debris: str) -> None:
    quotable = is_quotable(debris, first=False)

    assert not quotable, debris


@pytest.mark.parametrize(
    "prose",
    [
        PROSE,
        "We use Natural Questions (NQ) and TriviaQA, following Karpukhin et al. (2020).",
        "RETRO retrieves from a 2 trillion token database; the retriever is a frozen BERT.",
        "With 25x fewer parameters, it obtains comparable performance to GPT-3 on the Pile.",
        "The model reaches 58.9 on dev, 61.1 on test, 60.8 on the hard split and 10.7 on ood.",
        "word2vec learns embeddings of words from their contexts in a large corpus of text.",
    ],
)
def test_prose_is_quotable(prose: str) -> None:
    quotable = is_quotable(prose, first=True)

    assert quotable, prose


def test_a_fragment_cut_off_at_a_chunk_boundary_is_not_quoted() -> None:
    text = f"vectors of the passages are kept in memory. {PROSE} The decoder then attends to"
    source = make_source(1, text=text)

    quoted = [s.text for s in source_sentences(source, 0)]

    assert quoted == [PROSE]


def test_the_papers_own_reference_numbers_are_left_out_of_the_quote() -> None:
    text = (
        "Dense retrieval outperforms BM25 on open-domain questions [12, 14]. "
        "It also runs fast on one machine [3]."
    )
    source = make_source(1, text=text)

    quoted = [s.text for s in source_sentences(source, 0)]

    assert quoted == [
        "Dense retrieval outperforms BM25 on open-domain questions.",
        "It also runs fast on one machine.",
    ]


def test_list_items_and_a_lost_space_end_sentences() -> None:
    text = (
        "We make three contributions. \u2022 We introduce Retro, a retrieval model. \u2022 We "
        "show it scales.We release the code of the model.1 Further work follows below."
    )

    sentences = split_sentences(text)

    assert sentences == [
        "We make three contributions.",
        "We introduce Retro, a retrieval model.",
        "We show it scales.",
        "We release the code of the model.1",
        "Further work follows below.",
    ]


@pytest.mark.parametrize(
    "prose",
    [
        "We introduce HausaNLP (https://catalog.hausanlp.org), a curated catalog of datasets.",
        "AAC is $1.2$--$1.5{\\times}$ faster than FPS-ALT at the median query on road networks.",
        "Sorting by the infinite periodic order requires $O(n \\log n)$ time for all rotations.",
    ],
)
def test_an_address_aside_and_inline_tex_keep_a_sentence_quotable(prose: str) -> None:
    quotable = is_quotable(prose, first=False)

    assert quotable, prose


def test_a_rhetorical_question_is_not_quoted() -> None:
    source = make_source(1, text=f"How does ZeRO work with model parallelism? {PROSE}")

    quoted = [s.text for s in source_sentences(source, 0)]

    assert quoted == [PROSE]


def test_values_listed_in_brackets_are_quoted_in_parentheses_not_dropped() -> None:
    text = "For the distillation we tried temperatures of [1, 2, 5, 10] as in [4, 7]."
    source = make_source(1, text=text)

    quoted = [s.text for s in source_sentences(source, 0)]

    assert quoted == ["For the distillation we tried temperatures of (1, 2, 5, 10) as in."]
