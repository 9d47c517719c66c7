from __future__ import annotations

import re

import pytest

from chat.rag.citations import guard as citations
from chat.rag.citations.guard import CitationGuard
from chat.rag.sources import Source
from tests.support.worlds.disguises import MADE_UP
from tests.support.worlds.sources import guarded, make_source

pytestmark = pytest.mark.timeout(30)


def _source(n: int, paper_id: str, *, is_arxiv: bool = True) -> Source:
    return make_source(n, paper_id, is_arxiv=is_arxiv, page=2)


SOURCES = (
    _source(1, "2203.12533"),
    _source(2, "1706.03762"),
    _source(3, "hep-th/9901001"),
    _source(4, "3f2a9c01b4e5d6a7", is_arxiv=False),
)


def _run(text: str, sources: tuple[Source, ...] = SOURCES) -> tuple[str, CitationGuard]:
    guard = CitationGuard(sources)
    return guard.feed(text) + guard.flush(), guard


def _run_pieces(pieces: list[str]) -> tuple[str, list[str], list[str]]:
    return guarded(pieces, SOURCES)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Attention [arXiv:2203.12533].", "Attention [arXiv:2203.12533]."),
        ("Attention [arXiv:2203.12533v2].", "Attention [arXiv:2203.12533]."),
        ("Attention [arXiv: 2203.12533].", "Attention [arXiv:2203.12533]."),
        ("Attention [arxiv:2203.12533 ].", "Attention [arXiv:2203.12533]."),
        ("Strings [arXiv:hep-th/9901001].", "Strings [arXiv:hep-th/9901001]."),
        ("Strings [arXiv:hep-th/9901001v3].", "Strings [arXiv:hep-th/9901001]."),
        ("A local PDF [doc:3f2a9c01b4e5d6a7].", "A local PDF [doc:3f2a9c01b4e5d6a7]."),
    ],
)
def test_citation_of_a_source_passes_in_normal_form(text: str, expected: str) -> None:
    out, guard = _run(text)

    assert out == expected
    assert guard.dropped == []


def test_citations_are_listed_without_version_in_order_of_first_use() -> None:
    text = (
        "B [arXiv:1706.03762v5]. A [arXiv:2203.12533]. "
        "B again [arXiv:1706.03762]. D [doc:3f2a9c01b4e5d6a7]."
    )

    _, guard = _run(text)

    assert guard.citations == ["1706.03762", "2203.12533", "3f2a9c01b4e5d6a7"]


@pytest.mark.parametrize(
    ("text", "expected", "dropped"),
    [
        ("Made up [arXiv:9999.99999].", "Made up.", ["9999.99999"]),
        ("Made up [arXiv:9999.99999v2], really.", "Made up, really.", ["9999.99999"]),
        ("Made up [arXiv:9999.99999] and more.", "Made up and more.", ["9999.99999"]),
        ("Made up[arXiv:9999.99999] and more.", "Made up and more.", ["9999.99999"]),
        ("Two [arXiv:1111.11111] [arXiv:2222.22222].", "Two.", ["1111.11111", "2222.22222"]),
        ("Old [arXiv:math/0309136].", "Old.", ["math/0309136"]),
        ("Doc [doc:0000000000000000].", "Doc.", ["0000000000000000"]),
        ("[arXiv:9999.99999] Opening.", "Opening.", ["9999.99999"]),
        ("Line [arXiv:9999.99999]\nNext.", "Line\nNext.", ["9999.99999"]),
        ("End [arXiv:9999.99999]", "End", ["9999.99999"]),
        ("(see [arXiv:9999.99999])", "(see)", ["9999.99999"]),
    ],
)
def test_citation_of_no_source_is_removed_with_its_space_and_listed(
    text: str, expected: str, dropped: list[str]
) -> None:
    out, guard = _run(text)

    assert out == expected
    assert guard.dropped == dropped
    assert guard.citations == []


def test_unknown_citation_next_to_a_real_one_leaves_the_real_one() -> None:
    out, guard = _run("Claim [arXiv:2203.12533] [arXiv:9999.99999] [arXiv:1706.03762].")

    assert out == "Claim [arXiv:2203.12533] [arXiv:1706.03762]."
    assert guard.citations == ["2203.12533", "1706.03762"]
    assert guard.dropped == ["9999.99999"]


def test_dropped_ids_are_listed_once() -> None:
    _, guard = _run("A [arXiv:9999.99999]. B [arXiv:9999.99999v2].")

    assert guard.dropped == ["9999.99999"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Claim [1].", "Claim [arXiv:2203.12533]."),
        ("Claim [2, 3].", "Claim [arXiv:1706.03762][arXiv:hep-th/9901001]."),
        ("Claim [1][2].", "Claim [arXiv:2203.12533][arXiv:1706.03762]."),
        ("Claim [1-2].", "Claim [arXiv:2203.12533][arXiv:1706.03762]."),
        (
            "Claim [2\u20134].",
            "Claim [arXiv:1706.03762][arXiv:hep-th/9901001][doc:3f2a9c01b4e5d6a7].",
        ),
        ("Claim [1; 1].", "Claim [arXiv:2203.12533]."),
        ("Claim [1, arXiv:1706.03762].", "Claim [arXiv:2203.12533][arXiv:1706.03762]."),
    ],
)
def test_numeric_citation_becomes_the_sources_citations(text: str, expected: str) -> None:
    out, guard = _run(text)

    assert out == expected
    assert guard.dropped == []


def test_numeric_citation_out_of_range_is_dropped() -> None:
    out, guard = _run("Claim [7]. Other [2, 9]. Range [4-5].")

    assert out == "Claim. Other [arXiv:1706.03762]. Range [doc:3f2a9c01b4e5d6a7]."
    assert guard.dropped == ["[7]", "[9]", "[5]"]
    assert guard.citations == ["1706.03762", "3f2a9c01b4e5d6a7"]


def test_several_ids_in_one_bracket_are_split_and_checked_each() -> None:
    out, guard = _run("Both [arXiv:2203.12533, arXiv:9999.99999; arXiv:1706.03762v1].")

    assert out == "Both [arXiv:2203.12533][arXiv:1706.03762]."
    assert guard.dropped == ["9999.99999"]


@pytest.mark.parametrize(
    "text",
    [
        "Index x[a] and [CLS] token.",
        "On [0, 1) and [0, 1].",
        "Year [2023] and [1000].",
        "Range [3-1] backwards.",
        "Markdown [link](http://example.com) and [x].",
        "Empty [] and [ ] and [,].",
        "Nested [[note]] here.",
        "Unclosed [arXiv:2203.12533 at the end",
        "Unclosed [1",
        "Word [arXivist] and [documents] and [docs: x y].",
        "Math [a, b] and [i; j].",
        "Cited as [arXiv preprint] and [doc] and [arXiv].",
        "Fullwidth \uff3b\u6ce8\uff3d and \uff3bCLS\uff3d stay.",
    ],
)
def test_brackets_that_are_no_citation_pass_unchanged(text: str) -> None:
    out, guard = _run(text)

    assert out == text
    assert guard.citations == []
    assert guard.dropped == []


def test_long_bracket_that_is_no_citation_passes_unchanged_once_past_the_bound() -> None:
    guard = CitationGuard(SOURCES)
    text = "Vector [" + ", ".join(str(n) for n in range(1, 40)) + "] done."

    first = guard.feed(text[:40])
    second = guard.feed(text[40:])

    assert first == "Vector"
    assert first + second + guard.flush() == text
    assert guard.dropped == []


def test_split_citation_is_held_back_then_emitted_whole() -> None:
    guard = CitationGuard(SOURCES)

    first = guard.feed("Attention [arXiv:2203.")
    second = guard.feed("12533v1] works.")
    rest = guard.flush()

    assert first == "Attention"
    assert second == " [arXiv:2203.12533] works."
    assert rest == ""


def test_split_numeric_citation_is_emitted_whole() -> None:
    guard = CitationGuard(SOURCES)

    first = guard.feed("Claim [")
    second = guard.feed("1]")
    rest = guard.flush()

    assert first == "Claim"
    assert second == " [arXiv:2203.12533]"
    assert rest == ""


def test_ordinary_bracket_is_released_as_soon_as_it_cannot_be_a_citation() -> None:
    guard = CitationGuard(SOURCES)

    out = guard.feed("The [CLS")

    assert out == "The [CLS"


def test_plain_text_is_emitted_at_once_except_trailing_spaces() -> None:
    guard = CitationGuard(SOURCES)

    first = guard.feed("Plain text ")
    second = guard.feed("goes on.")

    assert first == "Plain text"
    assert second == " goes on."
    assert guard.flush() == ""


def test_flush_emits_held_spaces_and_an_unfinished_bracket() -> None:
    guard = CitationGuard(SOURCES)

    out = guard.feed("Ends with [2, ")

    assert out == "Ends with"
    assert guard.flush() == " [2, "


def test_no_sources_drops_every_citation() -> None:
    out, guard = _run("Claim [1] and [arXiv:2203.12533].", sources=())

    assert out == "Claim and."
    assert guard.dropped == ["[1]", "2203.12533"]


SAMPLES = [
    "Attention [arXiv:2203.12533v2] helps [1][2], unlike [arXiv:9999.99999]. See [2-3].",
    "Bad [arXiv: 9999.99999] here [doc:3f2a9c01b4e5d6a7]; [CLS] and [0, 1) stay [a].",
    "[7] Start. Old [arXiv:hep-th/9901001v1] [arXiv:math/0309136]\nNext [ [1, 9] x[0].",
    "Many [arXiv:1111.11111]  [2]   [arXiv:2222.22222] , end [1",
    "Hid [arXiv:9999.99999?] [ar\u200bXiv:9999.1] \uff3barXiv\uff1a2203.12533\uff3d ok",
    "Pad [arXiv:9999.99999" + "\u200b " * 40 + "] [\u0430rXiv:1706.03762] end",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_any_split_into_two_pieces_gives_the_whole_output(text: str) -> None:
    whole = _run_pieces([text])

    for cut in range(len(text) + 1):
        assert _run_pieces([text[:cut], text[cut:]]) == whole, cut


@pytest.mark.parametrize("text", SAMPLES)
def test_any_split_into_three_pieces_gives_the_whole_output(text: str) -> None:
    whole = _run_pieces([text])

    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            pieces = [text[:first], text[first:second], text[second:]]
            assert _run_pieces(pieces) == whole, (first, second)


@pytest.mark.parametrize("text", SAMPLES)
def test_feeding_one_character_at_a_time_gives_the_whole_output(text: str) -> None:
    whole = _run_pieces([text])

    pieces = _run_pieces(list(text))

    assert pieces == whole


@pytest.mark.parametrize(("bracket", "dropped"), MADE_UP)
def test_made_up_citation_in_disguise_is_removed_and_listed(bracket: str, dropped: str) -> None:
    out, guard = _run(f"Claim {bracket}, more.")

    expected = "Claim [arXiv:2203.12533], more." if "2203" in bracket else "Claim, more."
    assert out == expected
    assert guard.dropped == [dropped]


@pytest.mark.parametrize(
    "bracket",
    [
        "[\u0430rXiv:2203.12533]",
        "[arXiv:2203.12533\u200b]",
        "\uff3barXiv\uff1a2203.12533\uff3d",
        "[arXiv:" + " " * 70 + "2203.12533v2]",
    ],
)
def test_disguised_citation_of_a_source_comes_out_in_normal_form(bracket: str) -> None:
    out, guard = _run(f"Claim {bracket}.")

    assert out == "Claim [arXiv:2203.12533]."
    assert guard.citations == ["2203.12533"]
    assert guard.dropped == []


def test_text_after_a_citation_cut_at_the_bound_resumes_after_its_bracket() -> None:
    text = "Claim [arXiv:" + "9" * 100 + "] goes on.\nNext [arXiv:" + "1" * 100 + "\nline."

    out, guard = _run(text)

    assert out == "Claim goes on.\nNext\nline."
    assert len(guard.dropped) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("End [arXiv:9999.99999", "End"),
        ("End [\uff41rXiv:9999.99999v2 ", "End"),
        ("See [arXiv:9999.99999\nThe method works.", "See\nThe method works."),
        ("See [arXiv:9999.99999, arXiv:\r\nNext.", "See\r\nNext."),
    ],
)
def test_citation_left_open_at_the_end_of_its_line_or_the_stream_is_made_up(
    text: str, expected: str
) -> None:
    out, guard = _run(text)

    assert out == expected
    assert guard.dropped[0] == "9999.99999"


def test_citation_of_a_source_cut_off_by_the_end_of_the_stream_is_closed() -> None:
    out, guard = _run("As shown [arXiv:2203.12533v2")

    assert out == "As shown [arXiv:2203.12533]"
    assert guard.citations == ["2203.12533"]


def test_open_bracket_that_reads_as_prose_ends_with_its_line_and_passes() -> None:
    text = "See [arXiv: the preprint server\nThe method works [1]."

    out, guard = _run(text)

    assert out == "See [arXiv: the preprint server\nThe method works [arXiv:2203.12533]."
    assert guard.dropped == []


def test_every_citation_shaped_bracket_in_the_output_is_a_source_in_the_emitted_form() -> None:
    emitted = re.compile(citations.CITATION_PATTERN)
    ids = {source.id for source in SOURCES}
    text = " ".join(bracket for bracket, _ in MADE_UP) + " [1] [2-4] [doc:3f2a9c01b4e5d6a7]"

    out, _ = _run(text)

    brackets = re.findall(r"[\[\uff3b\ufe47][^\]\uff3d\ufe48]*[\]\uff3d\ufe48]?", out)
    assert len(brackets) == 6
    for bracket in brackets:
        match = emitted.fullmatch(bracket)
        assert match is not None, bracket
        assert match[2] in ids
