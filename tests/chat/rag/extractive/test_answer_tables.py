"""Table rows in the extractive answer: the row that holds a number question's words,
quoted as printed, leading its paper's sentences, without its reference numbers."""

from __future__ import annotations

import pytest

from chat.rag.extractive.answer_type import AnswerType
from chat.rag.extractive.answerer import compose, quoted_text
from chat.rag.extractive.tables import entity_row, labels_holding, read_rows
from chat.rag.sources import Source
from tests.chat.rag.extractive.conftest import source
from tests.support.worlds.sources import make_source

pytestmark = pytest.mark.timeout(120)


_VIT_TABLE = (
    "Model | Layers | Hidden size D | Params\n"
    "ViT-Base | 12 | 768 | 86M\n"
    "ViT-Large | 24 | 1024 | 307M\n"
    "ViT-Huge | 32 | 1280 | 632M"
)


def _vit_sources() -> list[Source]:
    table = make_source(2, "2010.11929", _VIT_TABLE, kind="table", section="Table 1", page=5)
    prose = source(1, "2010.11929", "We scale the ViT-Huge model variant to JFT pre-training.")
    return [prose, table]


def test_a_number_question_gets_the_table_row_holding_its_words() -> None:
    sources = _vit_sources()

    answer = compose("How large is the ViT-Huge model variant?", sources)
    rows = [s for s in answer.sentences if s.is_row]

    assert [r.text for r in rows] == ["ViT-Huge | 32 | 1280 | 632M"]
    assert rows[0].text in sources[1].text.split("\n")  # quoted as printed
    assert (
        "Table 1 (Model | Layers | Hidden size D | Params): ViT-Huge | 32 | 1280 | 632M "
        "[arXiv:2010.11929]"
    ) in "".join(answer.pieces())


@pytest.mark.parametrize(
    ("question", "cell"),
    [
        # The header cuts the question's word short.
        ("How many parameters does ViT-Large have?", "ViT-Large · Params · 307M"),
        ("How many layers does ViT-Base have?", "ViT-Base · Layers · 12"),
    ],
)
def test_a_question_naming_a_row_and_a_column_gets_their_cell(question: str, cell: str) -> None:
    answer = compose(question, _vit_sources())

    assert [s.text for s in answer.sentences if s.is_row] == [cell]


def test_no_table_row_for_a_question_that_asks_for_no_number() -> None:
    answer = compose("Which pre-training did the ViT-Huge model variant use?", _vit_sources())

    assert [(s.text, s.is_row) for s in answer.sentences] == [
        ("We scale the ViT-Huge model variant to JFT pre-training.", False)
    ]


def test_a_row_that_holds_none_of_the_question_is_not_quoted() -> None:
    sources = [
        source(1, "2401.00001", "Our detector reaches a high accuracy on the new benchmark."),
        make_source(2, "2401.00001", "Split | Images\nTrain | 1,000\nTest | 200", kind="table"),
    ]

    answer = compose("What accuracy does the detector reach on the benchmark?", sources)

    assert [(s.text, s.is_row) for s in answer.sentences] == [
        ("Our detector reaches a high accuracy on the new benchmark.", False)
    ]


def test_a_table_rows_reference_numbers_are_left_out_so_they_cite_no_source() -> None:
    table = "Retriever | Top-20 accuracy\nBM25 [3] | 59.1\nDPR [24] | 78.4"
    sources = [
        source(1, "2004.04906", "The dense retriever reaches a high top-20 accuracy."),
        make_source(2, "2004.04906", table, kind="table", section="Table 2"),
        source(3, "2401.00003", "Another paper about retrieval accuracy."),
    ]

    answer = compose("What top-20 accuracy does the DPR retriever reach?", sources)
    rows = [s for s in answer.sentences if s.is_row]

    assert [r.text for r in rows] == ["DPR \u00b7 Top-20 accuracy \u00b7 78.4"]
    assert "[24]" not in "".join(answer.pieces())


def test_a_table_row_leads_its_own_papers_sentences() -> None:
    """The number asked for comes before the prose of its paper, even its best sentence."""
    answer = compose("How many parameters does the ViT-Huge model variant have?", _vit_sources())

    assert [s.is_row for s in answer.sentences] == [True, False]


def test_the_cell_of_the_model_asked_about_leads_over_papers_that_never_name_it() -> None:
    """Papers of other models that share the question's words ("parameter count") are
    left out: only the table names the model asked about."""
    other = source(
        1,
        "2605.03999",
        "RD-ViT reaches 99.4% of standard ViT performance at 53% of the parameter count.",
    )
    sources = [other, _vit_sources()[1]]

    answer = compose("What's the parameter count of ViT-Huge?", sources)

    assert [s.text for s in answer.sentences] == ["ViT-Huge \u00b7 Params \u00b7 632M"]
    assert "arXiv:2605.03999" not in "".join(answer.pieces())


def test_a_row_of_scores_without_its_header_answers_no_count() -> None:
    rows = (
        "Fusion-in-Decoder (base) | 48.2 | 65.0 | 77.1\n"
        "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1"
    )
    sources = [
        source(1, "2007.01282", "For both training and testing, we retrieve 100 passages, and "
               "truncate them to 250 word pieces."),
        make_source(2, "2007.01282", rows, kind="table", section="Table 1"),
    ]  # fmt: skip

    counted = compose(
        "How many passages does Fusion-in-Decoder retrieve for training and testing, and to "
        "how many word pieces are they truncated?",
        sources,
    )
    scored = compose("What exact match does Fusion-in-Decoder reach?", sources)

    assert [s.is_row for s in counted.sentences] == [False]
    assert [s.is_row for s in scored.sentences][:1] == [True]


_REPTILE_TABLES = (
    "Parameter | 5-way | 20-way\n"
    "Inner iterations | 5 | 10\n"
    "Outer iterations | 100K | 200K\n"
    "Parameter | 1-shot | 5-shot\n"
    "Inner iterations | 8 | 8\n"
    "Outer iterations | 100K | 100K"
)
_FID_TABLE = (
    "Model | NQ | TriviaQA | TriviaQA\n"
    "| EM | EM | EM\n"
    "Fusion-in-Decoder (base) | 48.2 | 65.0 | 77.1\n"
    "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1"
)


def test_a_row_is_read_under_the_header_of_its_own_table() -> None:
    """Two tables in one chunk, their columns named by "5-way" and "1-shot": each row is
    read under the header before it, not the chunk's first line."""
    rows = read_rows(_REPTILE_TABLES)

    assert [(row, header) for _, row, header in rows] == [
        ("Inner iterations | 5 | 10", "Parameter | 5-way | 20-way"),
        ("Outer iterations | 100K | 200K", "Parameter | 5-way | 20-way"),
        ("Inner iterations | 8 | 8", "Parameter | 1-shot | 5-shot"),
        ("Outer iterations | 100K | 100K", "Parameter | 1-shot | 5-shot"),
    ]


def test_a_header_of_two_lines_is_read_column_by_column() -> None:
    (_, _, header), _ = read_rows(_FID_TABLE)

    assert header == "Model | NQ EM | TriviaQA EM | TriviaQA EM"


def test_a_quoted_row_says_the_columns_of_its_numbers() -> None:
    table = make_source(2, "1803.02999", _REPTILE_TABLES, kind="table", section="Table 4")
    sources = [source(1, "1803.02999", "We run Reptile on Omniglot and Mini-ImageNet."), table]

    answer = compose("How many outer iterations does Reptile run?", sources)

    assert "Table 4 (Parameter | 5-way | 20-way): Outer iterations | 100K | 200K" in (
        "".join(answer.pieces())
    )


def test_a_row_of_the_entity_asked_about_is_quoted_with_its_header() -> None:
    table = make_source(2, "2007.01282", _FID_TABLE, kind="table", section="Table 1")

    row = entity_row(AnswerType.parse("What exact match does Fusion-in-Decoder reach?"), [table])

    assert row is not None
    assert quoted_text(row) == (
        "Table 1 (Model | NQ EM | TriviaQA EM | TriviaQA EM): "
        "Fusion-in-Decoder (large) | 51.4 | 67.6 | 80.1"
    )


_RWKV_TABLE = (
    "Name | Layers | Model Dimension | Parameters\n"
    "169 M | 12 | 768 | 1.693 \u00d7 10^8\n"
    "3 B | 32 | 2560 | 2.985 \u00d7 10^9\n"
    "7 B | 32 | 4096 | 7.393 \u00d7 10^9"
)
_AGENTS_TABLE = (
    "Agent | Median | Env. Frames | Training Time | Training Steps\n"
    "R2D2 | 1920.6% | 37.5B | 5 days | 2.16M\n"
    "MuZero | 2041.1% | 20.0B | 12 hours | 1M"
)


def _table(paper: str, text: str) -> list[Source]:
    prose = source(1, paper, "We train every model of the family on the same data.")
    return [prose, make_source(2, paper, text, kind="table", section="Table 2", page=14)]


def test_a_question_for_two_columns_of_a_row_gets_both_cells() -> None:
    answer = compose(
        "How many layers and what model dimension does the 3B model have?",
        _table("2305.13048", _RWKV_TABLE),
    )

    said = "".join(answer.pieces())
    assert "3 B · Model Dimension · 2560; 3 B · Layers · 32" in said


def test_how_long_is_answered_by_the_cell_that_holds_a_duration() -> None:
    answer = compose(
        "How long did MuZero train according to the comparison table?",
        _table("1911.08265", _AGENTS_TABLE),
    )

    said = "".join(answer.pieces())
    assert "MuZero · Training Time · 12 hours" in said
    assert "Training Steps" not in said


def test_labels_holding_counts_header_and_row_label_terms_apart() -> None:
    wanted = frozenset({"layer", "dimens", "3b", "batch"})

    assert labels_holding(wanted, _RWKV_TABLE) == (2, 1)  # "3 B" read as "3B"
    assert labels_holding(frozenset({"batch"}), _RWKV_TABLE) == (0, 0)


def test_an_algorithm_box_read_as_a_table_is_no_table_of_values() -> None:
    box = (
        "Algorithm 2 STaR |\n"
        "| Input M0: an initial pretrained LLM; questions X w/ few-shot prompts\n"
        "1: M \u2190 M0 |\n"
        "2: for iteration in n_iterations do # Outer loop | 2: for iteration in n_iterations do"
    )
    steps = "9: | for 1 \u2264 i \u2264 Tr do\n10: | Load Qi, Oi from HBM to on-chip SRAM."
    prose = "For each outer loop we prompt with each of the 9,741 training questions."
    sources = [
        make_source(1, "2203.14465", box, kind="table", section="Algorithm 2", page=3),
        make_source(2, "2205.14135", steps, kind="table", section="", page=20),
        source(3, "2203.14465", prose),
    ]

    answer = compose("How many training questions do they prompt with in each outer loop?", sources)

    assert [s.text for s in answer.sentences if s.is_row] == []
    assert read_rows(box) == []
    assert read_rows(steps) == []
    assert "9,741" in "".join(answer.pieces())
