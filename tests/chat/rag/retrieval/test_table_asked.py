"""A question for a value of the one paper searched gets that paper's table whose headers
and row labels hold its words, even when the search ranked it nowhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.leading import Figure, table_asked
from ingest.index.records import Paper

RWKV = Paper("2305.13048", "RWKV: Reinventing RNNs for the Transformer Era")
SIZES = "2305.13048#table-60@0f"
SCORES = "2305.13048#table-61@0f"
TEXTS = {
    SIZES: (
        "Name | Layers | Model Dimension | Parameters\n"
        "169 M | 12 | 768 | 1.693 \u00d7 10^8\n"
        "3 B | 32 | 2560 | 2.985 \u00d7 10^9\n"
        "7 B | 32 | 4096 | 7.393 \u00d7 10^9"
    ),
    SCORES: "Model | LAMBADA | PIQA\nRWKV 3B | 65.1 | 73.7\nPythia 2.8B | 64.7 | 73.8",
    "2305.13048#caption-59@0f": "Table 2: RWKV model architectures used in the evaluations.",
}
FIGURES = [
    Figure("2305.13048#caption-59@0f", "caption", 59, 14, "Table 2"),
    Figure(SIZES, "table", 60, 14, ""),
    Figure(SCORES, "table", 61, 15, ""),
]


def _figures(paper: str) -> list[Figure]:
    return FIGURES if paper == RWKV.id else []


def _texts(chunks: Sequence[str]) -> Mapping[str, str]:
    return {c: TEXTS[c] for c in chunks if c in TEXTS}


PROSE = [
    Candidate("2305.13048#fulltext-5@0f", RWKV.id, 0.9),
    Candidate("2305.13048#fulltext-16@0f", RWKV.id, 0.8),
    Candidate("2305.13048#fulltext-4@0f", RWKV.id, 0.7),
]


def _ids(found: Sequence[Candidate]) -> list[str]:
    return [c.chunk_id for c in found]


def test_the_table_whose_header_and_row_labels_hold_the_question_comes_second() -> None:
    found = table_asked(
        "how many layers and what model dimension does its 3B model have? RWKV",
        PROSE,
        RWKV,
        _figures,
        _texts,
    )

    assert _ids(found) == [PROSE[0].chunk_id, SIZES, *_ids(PROSE[1:])]
    assert found[1].paper_id == RWKV.id


def test_no_table_for_a_row_naming_the_paper_alone_a_setting_no_column_holds_or_no_value() -> None:
    # "RWKV 3B" labels a row of the scores table, but RWKV is the paper's own name.
    by_name = table_asked("What LAMBADA score does RWKV reach?", PROSE, RWKV, _figures, _texts)
    # Layers and 3 B are there; no column is a batch size.
    other_setting = table_asked(
        "What batch size does the 3B model with 32 layers use?", PROSE, RWKV, _figures, _texts
    )
    no_value = table_asked("What is the 3B model's architecture?", PROSE, RWKV, _figures, _texts)

    assert _ids(by_name) == _ids(PROSE)
    assert _ids(other_setting) == _ids(PROSE)
    assert _ids(no_value) == _ids(PROSE)


def test_a_table_the_search_already_ranked_near_the_top_is_left_in_its_place() -> None:
    chosen = [PROSE[0], Candidate(SIZES, RWKV.id, 0.85), *PROSE[1:]]

    found = table_asked("How many layers does the 3B model have?", chosen, RWKV, _figures, _texts)

    assert found == chosen


def test_an_algorithm_box_and_a_table_with_no_duration_for_how_long_are_not_taken() -> None:
    box = "2305.13048#table-62@0f"
    texts = {
        **TEXTS,
        box: "Algorithm 1 Training | Algorithm 1 Training\n1: Input: layers | 3 B models, 32",
    }
    figures = [*FIGURES, Figure(box, "table", 62, 16, "")]

    def read(chunks: Sequence[str]) -> Mapping[str, str]:
        return {c: texts[c] for c in chunks if c in texts}

    boxed = table_asked(
        "How many layers does the algorithm use for 3B models?",
        PROSE,
        RWKV,
        lambda _paper: [figures[0], figures[3]],
        read,
    )
    lasting = table_asked(
        "How long did the 3B model with 32 layers train?", PROSE, RWKV, _figures, _texts
    )

    assert _ids(boxed) == _ids(PROSE)
    assert _ids(lasting) == _ids(PROSE)
