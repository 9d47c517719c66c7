"""A quoted sentence's own citation markers followed to the references they stand for, over
RAG (numbered markers), FiD and DPR (author-year markers) read from their real PDFs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from chat.rag.answer.answering import Question
from chat.rag.answer.events import Gathered, gather
from chat.rag.answer.quotes import quotes
from chat.rag.citations.markers import cited_references
from chat.rag.sources import Source
from tests.support.worlds.citations import DPR, FID, RAG, cited_index_fixture  # noqa: F401 - fixture

if TYPE_CHECKING:
    from chat.wiring import Wiring

pytestmark = pytest.mark.timeout(300)


def _sentence(index: Wiring, paper: str, pattern: str) -> tuple[str, str]:
    """The first sentence of `paper`'s chunks that matches `pattern`, and its chunk's id."""
    rows = index.catalog.db.execute("SELECT id, text FROM chunks WHERE paper_id = ?", (paper,))
    for row in rows:
        for sentence in re.split(r"(?<=\.)\s+", row["text"]):
            if re.search(pattern, sentence):
                return sentence, str(row["id"])
    raise LookupError(pattern)


def test_a_numbered_marker_names_the_entry_of_its_number(cited_index: Wiring) -> None:
    sentence, _ = _sentence(cited_index, RAG, r"based on DPR \[\d+\]")

    found = cited_references(sentence, cited_index.catalog.references_of(RAG))

    assert [r.resolved_id for r in found] == [DPR]
    assert re.fullmatch(r"\[\d+\]", found[0].marker)
    assert "dense passage retrieval" in found[0].title.lower()


def test_an_author_year_marker_names_the_first_author_s_entry_of_that_year(
    cited_index: Wiring,
) -> None:
    sentence, _ = _sentence(cited_index, FID, r"DPR \(Karpukhin et al\., 2020\)")

    found = cited_references(sentence, cited_index.catalog.references_of(FID))

    by_marker = {r.marker: r.resolved_id for r in found}
    assert by_marker["Karpukhin et al., 2020"] == DPR


def test_an_author_year_marker_two_entries_share_names_none(cited_index: Wiring) -> None:
    references = cited_index.catalog.references_of(DPR)
    lewis_2020 = [
        r
        for r in references
        if r.reference.year == 2020 and r.reference.authors.split(", ")[0].endswith("Lewis")
    ]

    found = cited_references("as shown before (Lewis et al., 2020).", references)

    assert len(lewis_2020) >= 2
    assert found == ()


def test_a_quote_lists_the_references_its_words_cite(cited_index: Wiring) -> None:
    sentence, chunk_id = _sentence(cited_index, RAG, r"based on DPR \[\d+\]")
    source = Source(
        n=1, id=RAG, is_arxiv=True, title="RAG", chunk_id=chunk_id, kind="fulltext",
        section="", page=None, text=sentence, score=1.0, url="",
    )  # fmt: skip
    answer = f"{sentence} [arXiv:{RAG}]"

    [followed] = quotes(answer, [source], cited_index.catalog.references_of)
    [plain] = quotes(answer, [source])

    assert [r["resolved_id"] for r in followed.data()["references"]] == [DPR]
    assert "references" not in plain.data()


async def test_the_done_event_s_quotes_carry_the_references(cited_index: Wiring) -> None:
    question = Question(text="How does FiD retrieve passages?")

    gathered = await gather(cited_index.answerer.answer(question), Gathered())

    assert gathered.done is not None
    cited = [
        (quote.paper_id, reference.resolved_id)
        for quote in gathered.done.quotes
        for reference in quote.references
    ]
    assert (FID, DPR) in cited
    assert all(
        reference.marker.strip("[]").split()[0] in quote.text
        for quote in gathered.done.quotes
        for reference in quote.references
    )
