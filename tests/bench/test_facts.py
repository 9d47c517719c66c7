"""The facts benchmark's questions hold what the papers say, and its scoring counts right."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from bench.quality.facts import Reply, has_fact, held_out, read_questions, score

PDFS = Path(__file__).resolve().parents[3] / "shared" / "data" / "pdfs"
# The two ACL Anthology papers and the two PDFs not named by their arXiv id, by their
# ids in the index's catalog.
KNOWN = {
    "f83d85b272d5efd7": "2020.acl-main.447",
    "9a9eb47ba637cafc": "2023.eacl-main.121",
    "1412.6980": "Adam_ A Method for Stochastic Optimization",
    "1803.07113": "Zhu et al. - 2020 - Zero-Shot Detection",
}
ROWS = read_questions()


def pdf_of(gold_id: str) -> Path:
    if gold_id in KNOWN:
        return PDFS / f"{KNOWN[gold_id]}.pdf"
    found = sorted(PDFS.glob(f"{gold_id}v*.pdf"))
    assert found, f"no PDF for {gold_id}"
    return found[0]


@cache
def page_text(path: Path, page: int) -> str:
    document = pdfium.PdfDocument(path)
    try:
        return " ".join(document[page - 1].get_textpage().get_text_range().split())
    finally:
        document.close()


def test_the_question_file_has_enough_rows_of_each_kind() -> None:
    kinds = Counter(row["kind"] for row in ROWS)
    assert len(ROWS) >= 60
    assert kinds["fact"] >= 30
    assert kinds["who_when"] >= 15
    assert kinds["follow_up"] >= 15
    assert len({row["qid"] for row in ROWS}) == len(ROWS)


def test_facts_are_spread_over_at_least_twenty_papers() -> None:
    assert len({row["gold_id"] for row in ROWS if row["kind"] == "fact"}) >= 20


def test_every_gold_paper_is_one_of_the_pdfs() -> None:
    for row in ROWS:
        assert pdf_of(row["gold_id"]).is_file(), row["qid"]


def test_follow_ups_have_an_earlier_question_and_the_others_none() -> None:
    for row in ROWS:
        assert bool(row["history"]) == (row["kind"] == "follow_up"), row["qid"]


@pytest.mark.parametrize("row", [r for r in ROWS if r["page"] is not None], ids=lambda r: r["qid"])
def test_the_evidence_is_on_the_page_given(row: dict[str, object]) -> None:
    evidence = " ".join(str(row["evidence"]).split())
    assert evidence in page_text(pdf_of(str(row["gold_id"])), int(str(row["page"])))


def test_every_third_question_is_held_out() -> None:
    for row in ROWS:
        assert (row["split"] == "held_out") == held_out(row["qid"]), row["qid"]
    assert [r["qid"] for r in ROWS if r["split"] == "held_out"][:2] == ["f003", "f006"]


BERT = {"gold_id": "1810.04805", "answer_terms": [["24"], ["layers", "L="]]}


def test_an_answer_without_the_fact_fails() -> None:
    reply = Reply("BERT is a bidirectional Transformer. [arXiv:1810.04805]", ("1810.04805",), False)
    figures = score(reply, BERT)
    assert figures["fact"] == 0.0
    assert figures["cites gold"] == 1.0
    assert figures["fact and citation"] == 0.0


def test_every_group_of_terms_must_be_present() -> None:
    assert has_fact("BERTLARGE (L=24, H=1024)", BERT["answer_terms"])
    assert not has_fact("24 attention heads", [["24"], ["layers"]])


def test_a_citation_is_not_read_as_the_fact() -> None:
    assert not has_fact("See [arXiv:2401.24000]", [["24"]])


def test_an_unrelated_paper_cited_is_counted() -> None:
    text = "BERT-large has 24 layers. [arXiv:1810.04805v2] [arXiv:2104.08663]"
    reply = Reply(text, ("arXiv:1810.04805v2", "arXiv:2104.08663"), False)
    figures = score(reply, BERT)
    assert figures["fact and citation"] == 1.0
    assert figures["unrelated cited"] == 1.0
    assert figures["refused"] == 0.0
