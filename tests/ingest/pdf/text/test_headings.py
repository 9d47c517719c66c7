from __future__ import annotations

import pytest

from ingest.pdf.text.headings import HeadingTracker, continues_title, is_abstract

pytestmark = pytest.mark.timeout(10)


def _headings(tracker: HeadingTracker, lines: list[str]) -> list[tuple[str, str]]:
    found = (tracker.match(line) for line in lines)
    return [(heading.title, heading.kind) for heading in found if heading is not None]


def test_numbered_list_items_and_table_rows_are_not_headings() -> None:
    lines = [
        "Abstract",
        "We study things.",
        "1 Introduction",
        "We list three points:",
        "1. Cosine Similarity: We prune neighbors of an item",
        "2. Semantic Similarity: We prune neighbors that overlap",
        "3 B 32 2560 2.985 x 109",
        "P E(pos,2i) = sin(pos/100002i/dmodel)",
        "2 Method",
        "Our method.",
    ]

    headings = _headings(HeadingTracker(has_abstract=True), lines)

    assert headings == [
        ("Abstract", "named"),
        ("1 Introduction", "numbered"),
        ("2 Method", "numbered"),
    ]


def test_lettered_heading_after_references_starts_the_appendix() -> None:
    lines = ["1 Introduction", "Text.", "References", "A. Author. A paper. 2020.", "A Proofs"]

    headings = _headings(HeadingTracker(), [*lines, "Proof.", "A.1 Lemma"])

    assert headings == [
        ("1 Introduction", "numbered"),
        ("References", "references"),
        ("A Proofs", "appendix"),
        ("A.1 Lemma", "appendix"),
    ]


def test_numbered_lines_before_the_abstract_are_not_headings() -> None:
    lines = ["1 Introduction", "Abstract. We study x.", "1 Introduction"]

    tracker = HeadingTracker(has_abstract=True)

    found = [tracker.match(line) for line in lines]

    assert found[0] is None
    assert found[1] is not None
    assert (found[1].title, found[1].rest) == ("Abstract", "We study x.")
    assert found[2] is not None
    assert found[2].title == "1 Introduction"


def test_abstract_heading_may_run_in_but_a_longer_word_is_none() -> None:
    texts = ["Abstract", "Abstract: We study", "Abstraction is hard"]

    found = [is_abstract(text) for text in texts]

    assert found == [True, True, False]


def test_wrapped_heading_continues_on_a_title_cased_line_only() -> None:
    title = "2 Towards Reducing"

    assert continues_title(title, "Covariate Shift")
    assert not continues_title(title, "the covariate shift.")
    assert not continues_title("2 ALGORITHM", "Covariate Shift")
