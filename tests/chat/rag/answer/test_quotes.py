"""What each citation of an answer stands for: the passage of the cited paper holding the
words it follows, and those words."""

from __future__ import annotations

from chat.rag.answer.quotes import MAX_QUOTE_CHARS, quotes
from tests.support.worlds.sources import make_source

FID = "2007.01282"
METHOD = make_source(
    1,
    FID,
    "Our model encodes each retrieved passage independently and the decoder attends over "
    "the concatenation of all the passages.",
)
TABLE = make_source(
    2,
    FID,
    "Model | NQ | TriviaQA\nFusion-in-Decoder (large) | 51.4 | 67.6",
    kind="table",
    section="Table 1",
)
RAG = make_source(3, "2005.11401", "RAG models combine parametric and non-parametric memory.")
SOURCES = (METHOD, TABLE, RAG)


def test_each_citation_names_the_passage_its_words_come_from_not_the_papers_first() -> None:
    answer = (
        "Table 1: Fusion-in-Decoder (large) · TriviaQA · 67.6 [arXiv:2007.01282] "
        "The decoder attends over the concatenation of all the passages. [arXiv:2007.01282]"
    )

    found = quotes(answer, SOURCES)

    assert [(q.paper_id, q.chunk_id) for q in found] == [
        (FID, TABLE.chunk_id),
        (FID, METHOD.chunk_id),
    ]
    assert found[0].text == "Table 1: Fusion-in-Decoder (large) · TriviaQA · 67.6"
    assert found[1].text == "The decoder attends over the concatenation of all the passages."


def test_citations_side_by_side_share_their_words_and_a_lead_line_is_not_quoted() -> None:
    answer = (
        "Both papers retrieve passages.\n\n"
        "They combine parametric and non-parametric memory [arXiv:2005.11401][arXiv:2007.01282]."
    )

    first, second = quotes(answer, SOURCES)

    assert first.text == second.text == "They combine parametric and non-parametric memory"
    assert (first.chunk_id, second.chunk_id) == (RAG.chunk_id, METHOD.chunk_id)


def test_words_no_passage_holds_open_the_papers_best_ranked_passage() -> None:
    [found] = quotes("In short, it works well [arXiv:2007.01282].", SOURCES)

    assert found.chunk_id == METHOD.chunk_id
    assert found.text == "In short, it works well"


def test_a_citation_of_no_source_has_no_quote_and_a_long_stretch_keeps_its_end() -> None:
    long = " ".join(["filler"] * 400) + " the decoder attends over all the passages"
    answer = f"Made up [arXiv:9999.99999]. {long} [arXiv:2007.01282]"

    [found] = quotes(answer, SOURCES)

    assert found.paper_id == FID
    assert len(found.text) <= MAX_QUOTE_CHARS
    assert found.text.endswith("the decoder attends over all the passages")
    assert not found.text.startswith("ller")
