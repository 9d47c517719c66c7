"""A question asking what a named method is leads with the passage that presents it."""

from __future__ import annotations

from chat.rag.names.matches import NameMatch, Recognised
from chat.rag.retrieval.fusion import Candidate
from chat.rag.retrieval.leading import asked_name, definition_first
from ingest.index.filters import Filters

PAPER = "2205.14135"
FLASH = NameMatch(
    name="FlashAttention",
    asked="flash attention",
    long_forms=(),
    definers=(PAPER,),
    introducers=(PAPER,),
    apart="flash attention",
)
NAMES = Recognised(matches=(FLASH,), boosted=frozenset({PAPER}))
PASSAGES = {
    PAPER: [
        (f"{PAPER}#0", "Transformers are slow and memory-hungry on long sequences."),
        (f"{PAPER}#1", "We propose FlashAttention, an IO-aware exact attention algorithm."),
        (f"{PAPER}#2", "FlashAttention trains GPT-2 three times faster."),
    ]
}
RANKED = [
    Candidate(f"{PAPER}#9", PAPER, 2.0),
    Candidate("2601.00001#0", "2601.00001", 1.0),
    Candidate(f"{PAPER}#1", PAPER, 0.5),
]


def _opening(paper_id: str) -> list[tuple[str, str]]:
    return PASSAGES.get(paper_id, [])


def test_a_definition_question_leads_with_the_passage_that_presents_the_name() -> None:
    ranked = definition_first("what is flash attention", RANKED, NAMES, Filters(), _opening)

    assert [c.chunk_id for c in ranked] == [f"{PAPER}#1", f"{PAPER}#9", "2601.00001#0"]
    assert ranked[0].score > ranked[1].score


def test_a_defining_passage_fusion_did_not_find_is_added_first() -> None:
    unfound = RANKED[:2]

    ranked = definition_first("What is FlashAttention?", unfound, NAMES, Filters(), _opening)

    assert [c.chunk_id for c in ranked] == [f"{PAPER}#1", f"{PAPER}#9", "2601.00001#0"]


def test_other_questions_and_other_papers_keep_their_order() -> None:
    how = definition_first("How fast is flash attention?", RANKED, NAMES, Filters(), _opening)
    elsewhere = definition_first(
        "what is flash attention", RANKED, NAMES, Filters(paper_ids=("2601.00001",)), _opening
    )
    undefined = definition_first("what is flash attention", RANKED, NAMES, Filters(), lambda _: [])

    assert how == RANKED
    assert elsewhere == RANKED
    assert undefined == RANKED


def test_the_asked_name_is_the_one_the_question_spells() -> None:
    assert asked_name("what is flash attention", NAMES) is FLASH
    assert asked_name("What is FlashAttention?", NAMES) is FLASH
    assert asked_name("what is paged attention", NAMES) is None
    assert asked_name("flash attention speed", NAMES) is None
