"""Questions about the citation graph, answered from the catalog without a model, over FiD,
DPR and RAG read from their real PDFs: the papers listed are those the reference lists
resolve to, each cited, and each a source the citation guard lets through."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from chat.rag.answer.answering import Question
from chat.rag.answer.events import Gathered, gather
from chat.rag.records.questions import CITED_BY, CITES, asked_field
from tests.support.worlds.citations import DPR, FID, cited_index_fixture  # noqa: F401 - fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)

CITED_BY_DPR = ("Which papers in the library cite DPR?", "Who cites Dense Passage Retrieval?")
CITED_BY_FID = ("What papers does FiD cite?", "What does Fusion-in-Decoder build on?")


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ("Which papers in the library cite DPR?", CITED_BY),
        ("Who cites Dense Passage Retrieval?", CITED_BY),
        ("What does RETRO build on?", CITES),
        ("What papers does FiD cite?", CITES),
        ("What does RETRO retrieve?", None),
        ("Which venue was 1907.00326 accepted to?", "venue"),
        ("Which prior works does RETRO build on?", CITES),
        # Things other than papers are the content's: the text names them.
        ("Which detectors does the zero-shot detection paper build on?", None),
        ("What datasets do DPR and FiD build on?", None),
    ],
)
def test_graph_questions_are_told_from_other_questions(question: str, field: str | None) -> None:
    assert asked_field(question) == field


def _citing(index: Wiring, paper: str) -> set[str]:
    return {p.id for p in index.catalog.citing_papers(paper)}


def _cited(index: Wiring, paper: str) -> set[str]:
    return {s.resolved_id for s in index.catalog.references_of(paper) if s.resolved_id}


async def _ask(index: Wiring, question: str) -> Gathered:
    return await gather(index.answerer.answer(Question(text=question)), Gathered())


@pytest.mark.parametrize("question", CITED_BY_DPR)
async def test_the_papers_citing_dpr_are_listed_and_cited(
    cited_index: Wiring, question: str
) -> None:
    expected = _citing(cited_index, DPR)

    gathered = await _ask(cited_index, question)

    assert gathered.done is not None
    assert gathered.done.mode == "extractive"
    assert set(gathered.done.citations) == {DPR, *expected}
    assert gathered.done.dropped_citations == ()
    assert f"{len(expected)} papers of the library cite" in gathered.text


@pytest.mark.parametrize("question", CITED_BY_FID)
async def test_the_library_s_papers_fid_cites_are_listed_then_the_others_counted(
    cited_index: Wiring, question: str
) -> None:
    expected = _cited(cited_index, FID)
    others = len(cited_index.catalog.references_of(FID)) - len(expected)

    gathered = await _ask(cited_index, question)

    assert gathered.done is not None
    assert set(gathered.done.citations) == {FID, *expected}
    assert gathered.done.dropped_citations == ()
    assert re.search(rf"\bcites {len(expected)} papers of the library\b", gathered.text)
    assert f"Its other {others} references" in gathered.text


@pytest.mark.parametrize("question", [*CITED_BY_DPR, *CITED_BY_FID])
def test_every_listed_paper_s_record_is_a_source_for_a_model_too(
    cited_index: Wiring, question: str
) -> None:
    asked, listed = (DPR, _citing(cited_index, DPR))
    if question in CITED_BY_FID:
        asked, listed = (FID, _cited(cited_index, FID))

    sources = cited_index.retriever.retrieve(question).sources

    records = [s for s in sources if s.kind == "record"]
    assert [s.n for s in records] == list(range(1, len(records) + 1))
    assert records[0].id == asked
    assert {s.id for s in records[1:]} == listed
    assert all(f"arXiv:{p}" in records[0].text for p in listed)
