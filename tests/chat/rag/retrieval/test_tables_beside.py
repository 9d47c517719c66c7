"""A number question whose passages hold a table's caption gets that table's cells too."""

from __future__ import annotations

from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.leading import Figure, tables_beside_captions
from chat.wiring import Wiring

SEAL = "2204.10628"
REPTILE = "1803.02999"
OTHER = "2507.16028"


def _id(paper: str, kind: str, number: int) -> str:
    return f"{paper}#{kind}-{number}@9ebda1777e"


FIGURES = {
    # Two captions of tables and their two tables on page 6, a figure's caption on page 7.
    SEAL: [
        Figure(_id(SEAL, "caption", 57), "caption", 57, 6, "Table 1"),
        Figure(_id(SEAL, "caption", 58), "caption", 58, 6, "Table 2"),
        Figure(_id(SEAL, "table", 59), "table", 59, 6, ""),
        Figure(_id(SEAL, "table", 60), "table", 60, 6, ""),
        Figure(_id(SEAL, "caption", 61), "caption", 61, 7, "Figure 2"),
        Figure(_id(SEAL, "table", 62), "table", 62, 8, ""),
    ],
    # Two captions over one table chunk that holds both tables.
    REPTILE: [
        Figure(_id(REPTILE, "caption", 74), "caption", 74, 14, "Table 3"),
        Figure(_id(REPTILE, "caption", 75), "caption", 75, 14, "Table 4"),
        Figure(_id(REPTILE, "table", 76), "table", 76, 14, ""),
    ],
}


def _figures(paper: str) -> list[Figure]:
    return FIGURES.get(paper, [])


def _chosen(*chunks: tuple[str, str]) -> list[Candidate]:
    return [Candidate(chunk, paper, 1.0 / n) for n, (chunk, paper) in enumerate(chunks, 1)]


def test_caption_of_a_table_brings_the_table_in_its_place_on_the_page() -> None:
    chosen = _chosen((f"{OTHER}#abstract-0@0f", OTHER), (_id(SEAL, "caption", 57), SEAL))

    found = tables_beside_captions("How much space does SEAL's index take up?", chosen, _figures)

    assert [c.chunk_id for c in found] == [
        f"{OTHER}#abstract-0@0f",
        _id(SEAL, "caption", 57),
        _id(SEAL, "table", 59),
    ]
    assert found[2].paper_id == SEAL


def test_second_caption_gets_the_second_table_of_its_page() -> None:
    chosen = _chosen((_id(SEAL, "caption", 58), SEAL), (f"{OTHER}#abstract-0@0f", OTHER))

    found = tables_beside_captions("What hits@10 score does SEAL reach?", chosen, _figures)

    assert [c.chunk_id for c in found][:2] == [_id(SEAL, "caption", 58), _id(SEAL, "table", 60)]


def test_page_with_fewer_tables_than_captions_gives_the_table_after_the_caption() -> None:
    chosen = _chosen((_id(REPTILE, "caption", 75), REPTILE), (f"{OTHER}#abstract-0@0f", OTHER))

    found = tables_beside_captions(
        "For how many outer-loop iterations did they run Reptile?", chosen, _figures
    )

    assert _id(REPTILE, "table", 76) in [c.chunk_id for c in found]


def test_no_table_for_a_figure_caption_a_table_already_held_or_a_question_for_no_number() -> None:
    figure = _chosen((_id(SEAL, "caption", 61), SEAL), (f"{OTHER}#abstract-0@0f", OTHER))
    held = _chosen(
        (_id(SEAL, "caption", 57), SEAL),
        (_id(SEAL, "table", 59), SEAL),
        (f"{OTHER}#abstract-0@0f", OTHER),
    )
    caption = _chosen((_id(SEAL, "caption", 57), SEAL), (f"{OTHER}#abstract-0@0f", OTHER))

    for_figure = tables_beside_captions("How many passages does SEAL index?", figure, _figures)
    for_held = tables_beside_captions("How many passages does SEAL index?", held, _figures)
    for_words = tables_beside_captions("What is SEAL?", caption, _figures)

    assert for_figure == figure
    assert for_held == held
    assert for_words == caption


def test_passages_of_one_paper_get_no_table() -> None:
    chosen = _chosen((_id(SEAL, "caption", 57), SEAL), (_id(SEAL, "fulltext", 38), SEAL))

    found = tables_beside_captions("How much space does SEAL's index take up?", chosen, _figures)

    assert found == chosen


def test_retriever_reads_a_pdfs_captions_with_their_labels_and_its_tables(
    small_index: Wiring,
) -> None:
    figures = small_index.retriever.figures("2007.01282")

    kinds = {f.kind for f in figures}
    numbers = [f.number for f in figures]
    assert kinds == {"caption", "table"}
    assert numbers == sorted(numbers)
    assert any(f.label.startswith("Table") for f in figures if f.kind == "caption")
    assert all(f.label == "" for f in figures if f.kind == "table")
    assert all(f.page >= 1 for f in figures)
