"""A cell quoted from one paper's passages: a table's column, the fitting sentence, the
abstract first for what the paper is about, and not found when nothing fits."""

from __future__ import annotations

from chat.rag.compare.aspects import NOT_FOUND, aspect
from chat.rag.compare.cells import quoted_cell
from chat.rag.sources import Source

PAPER = "1512.03385"


def _source(
    number: int, text: str, kind: str = "fulltext", section: str = "4 Experiments"
) -> Source:
    return Source(
        n=number,
        id=PAPER,
        is_arxiv=True,
        title="Deep Residual Learning for Image Recognition",
        chunk_id=f"{PAPER}#{kind}-{number}@d",
        kind=kind,
        section=section,
        page=None if kind == "abstract" else 3,
        text=text,
        score=1.0 / number,
        url=f"https://arxiv.org/abs/{PAPER}",
    )


BODY = _source(
    1,
    "This number significantly outperforms the ILSVRC 14 results, showing a 64% relative "
    "reduction of error. This result won the 1st place on the ILSVRC 2015 classification task.",
)
ABSTRACT = _source(
    2,
    "Deeper neural networks are more difficult to train. We present a residual learning "
    "framework to ease the training of networks. An ensemble of these residual nets achieves "
    "3.57% error on the ImageNet test set.",
    section="Abstract",
)
TABLE = _source(
    3,
    "Dataset | Train | Test\nImageNet | 1,281,167 | 100,000\nCIFAR-10 | 50,000 | 10,000",
    kind="table",
    section="Table 1",
)


def test_the_main_result_and_the_task_are_read_in_the_abstract_first() -> None:
    result = quoted_cell(PAPER, aspect("main result"), [BODY, ABSTRACT])
    task = quoted_cell(PAPER, aspect("task"), [BODY, ABSTRACT])

    assert (
        result.text
        == "An ensemble of these residual nets achieves 3.57% error on the ImageNet test set."
    )
    assert result.citation == ABSTRACT.chunk_id
    assert task.text == "Deeper neural networks are more difficult to train."


def test_the_datasets_are_a_tables_dataset_column() -> None:
    cell = quoted_cell(PAPER, aspect("datasets"), [BODY, ABSTRACT, TABLE])

    assert cell.text == "Dataset: ImageNet, CIFAR-10"
    assert cell.citation == TABLE.chunk_id


def test_an_aspect_nothing_fits_is_not_found() -> None:
    cell = quoted_cell(PAPER, aspect("code availability"), [BODY, ABSTRACT])

    assert (cell.text, cell.citation) == (NOT_FOUND, None)
