"""The comparison benchmark's labels cover five papers by the six default aspects, and its
judge counts a cell right only when it says what the label says, cited."""

from __future__ import annotations

from bench.quality.comparison import is_right, read_labels
from chat.rag.compare.aspects import DEFAULT_ASPECTS, NOT_FOUND

LABELS = read_labels()


def test_the_labels_cover_five_papers_by_every_default_aspect() -> None:
    cells = {(label["paper_id"], label["aspect"]) for label in LABELS}

    papers = {paper for paper, _ in cells}
    assert len(papers) == 5
    assert cells == {(paper, aspect) for paper in papers for aspect in DEFAULT_ASPECTS}
    assert all(label.get("absent") or label["answer_terms"] for label in LABELS)


def test_a_cell_is_right_when_cited_and_holding_a_term_of_each_group() -> None:
    label = {"answer_terms": [["Natural Questions", "NQ"], ["TriviaQA", "SQuAD"]]}
    absent = {"absent": True}

    assert is_right(label, "We use natural  questions and TriviaQA.", "p#fulltext-1")
    assert not is_right(label, "We use Natural Questions and TriviaQA.", None)
    assert not is_right(label, "We use Natural Questions.", "p#fulltext-1")
    assert is_right(absent, NOT_FOUND, None)
    assert not is_right(absent, "Our code is at github.com/x/y.", "p#footnote-3")
