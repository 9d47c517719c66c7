"""Ids in any spelling: the citation guard judges every id-shaped string an answer
writes, whatever the white space and brackets around it and however it is split."""

from __future__ import annotations

import re

import pytest

from chat.rag.citations.confusables import fold_char
from chat.rag.citations.ids import ARCHIVES, BARE_ID, BARE_ID_PREFIX
from tests.support.worlds.sources import guarded, make_source

pytestmark = pytest.mark.timeout(60)

SOURCES = (
    make_source(1, "2203.12533", page=2),
    make_source(2, "hep-th/9901001", page=2),
)

# (spelling, the name listed in dropped_citations): each names a paper that is no source.
HOSTILE = [
    ("[arXiv:\n9999.90016]", "9999.90016"),
    ("[\n9999.90016 ]", "9999.90016"),
    ("[arXiv:\t9999.99999]", "9999.99999"),
    ("[arXiv:   9999.99999]", "9999.99999"),
    ("[arXiv:\u00a09999.99999]", "9999.99999"),
    ("[arXiv:\u200b9999.99999]", "9999.99999"),
    ("[\u20039999.99999\r\n]", "9999.99999"),
    ("[arXiv:9999.99999\n]", "9999.99999"),
    ("[\narXiv\n:\n9999.99999\n]", "9999.99999"),
    ("[9999.99999]", "9999.99999"),
    ("[ 9999.99999v2 ]", "9999.99999"),
    ("[9999.\u200b99999]", "9999.99999"),
    ("arXiv:9999.99999", "9999.99999"),
    ("arXiv 9999.99999", "9999.99999"),
    ("arXiv:\n9999.99999", "9999.99999"),
    ("arxiv.org/abs/9999.99999", "9999.99999"),
    ("https://arxiv.org/pdf/9999.99999v2", "9999.99999"),
    ("hep-th/9901002", "hep-th/9901002"),
    ("hep-th/9901002v2", "hep-th/9901002"),
    ("2301.99999", "2301.99999"),
    ("22\u200b01.99999", "2201.99999"),
    ("\u30109999.99999\u3011", "9999.99999"),
    ("\u3014 9999.99999 \u3015", "9999.99999"),
    ("\u3016arXiv:9999.99999\u3017", "9999.99999"),
    ("\uff3b9999.99999\uff3d", "9999.99999"),
    ("\u27e69999.99999\u27e7", "9999.99999"),
    ("(9999.99999)", "9999.99999"),
    ("( arXiv: 9999.99999 )", "9999.99999"),
    ("\uff089999.99999\uff09", "9999.99999"),
    ("(hep-th/9901002)", "hep-th/9901002"),
    ("\u3010hep-th/9901002\u3011", "hep-th/9901002"),
    # Look-alike digits and letters inside the same shapes.
    ("\u3010\uff19\uff19\uff19\uff19.99999\u3011", "9999.99999"),
    ("[\U0001d7d7999.99999]", "9999.99999"),
    ("(\u0669\u0669\u0669\u0669.99999)", "9999.99999"),
    ("h\u0435p-th/9901002", "hep-th/9901002"),
    ("\u3010ar\u0425iv:9999.99999\u3011", "9999.99999"),
    ("\u27689999.99999\u2769", "9999.99999"),
]

# Text that names no paper, or names a source as it may be named: it passes unchanged.
INNOCENT = [
    "It costs 1.5 dollars, about 0.25 of the 2019 budget.",
    "Use version 2.13.0 or 10.4.1, not v1.2.",
    "Released 2023-01-02, revised 2023.10.05 at 12:30.",
    "See pages 1234-5678, pp. 12-34 and Table 2.13.",
    "With x = 3.14159 and y = 2.71828, x/y is 1.1557.",
    "The model has 9999.99999 parameters; 1503.1234 and 1234.5678 are numbers.",
    "On [0, 1.5] and (0, 1), [1.5, 2.5] and [2023].",
    "Equation (3), (1.5), (2019) and (2020, 2021).",
    "Host 192.168.0.1 and https://example.com/2301.12345 stay.",
    "As 2203.12533 shows (see 2203.12533), and hep-th/9901001 too.",
    "Notes \u3010\u6ce8\u3011 and (CLS) and math and cs stay.",
    "The sum (1,234.56) is (a) and (see Section 3).",
]


def _run(pieces: list[str]) -> tuple[str, list[str], set[str]]:
    """The output, citations and dropped names (a set: the bracket and prose stages may
    find two made-up ids in either order)."""
    out, cited, dropped = guarded(pieces, SOURCES)
    return out, cited, set(dropped)


@pytest.mark.parametrize(("spelling", "dropped"), HOSTILE)
def test_id_of_no_source_in_any_spelling_is_removed_and_listed(spelling: str, dropped: str) -> None:
    text = f"Claim {spelling}, more."

    out, cited, names = _run([text])

    assert out == "Claim, more."
    assert cited == []
    assert names == {dropped}


@pytest.mark.parametrize(("spelling", "dropped"), HOSTILE)
def test_id_of_no_source_is_caught_however_the_stream_is_split(spelling: str, dropped: str) -> None:
    text = f"Claim {spelling}, more."
    whole = _run([text])

    for cut in range(len(text) + 1):
        assert _run([text[:cut], text[cut:]]) == whole, cut
    assert _run(list(text)) == whole
    assert whole[2] == {dropped}


@pytest.mark.parametrize("text", INNOCENT)
def test_text_that_names_no_other_paper_passes_unchanged_in_any_pieces(text: str) -> None:
    whole = _run([text])

    assert whole == (text, [], set())
    for cut in range(len(text) + 1):
        assert _run([text[:cut], text[cut:]]) == whole, cut
    assert _run(list(text)) == whole


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Shown [2203.12533v2].", "Shown [arXiv:2203.12533]."),
        ("Shown \u3010\n2203.12533 \u3011.", "Shown [arXiv:2203.12533]."),
        ("Shown (2203.12533).", "Shown [arXiv:2203.12533]."),
        ("Shown [arXiv:\n2203.12533].", "Shown [arXiv:2203.12533]."),
        ("Shown \u3014hep-th/9901001\u3015.", "Shown [arXiv:hep-th/9901001]."),
    ],
)
def test_source_id_in_any_bracket_comes_out_as_its_citation(text: str, expected: str) -> None:
    out, cited, names = _run([text])

    assert out == expected
    assert cited == [expected.split(":", 1)[1].split("]")[0]]
    assert names == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Claim [arXiv:9999.99999), more.", "Claim [), more."),
        ("Claim [x, 9999.99999], more.", "Claim [x,], more."),
        ("Claim (see 9999.99999), more.", "Claim (see), more."),
        ("Claim (9999.99999 ms), more.", "Claim ( ms), more."),
    ],
)
def test_id_among_other_words_in_a_bracket_is_removed_and_the_words_stay(
    text: str, expected: str
) -> None:
    out, _, names = _run([text])

    assert out == expected
    assert names == {"9999.99999"}


def test_line_break_ends_a_bracket_that_stops_reading_as_a_citation() -> None:
    text = "See [arXiv:9999.99999, arXiv:\r\nNext line.\n[arXiv: the preprint server\nEnd."

    out, _, names = _run([text])

    assert out == "See\r\nNext line.\n[arXiv: the preprint server\nEnd."
    assert "9999.99999" in names


def _id_shaped(text: str) -> list[str]:
    folded = "".join(fold_char(char) for char in text)
    return re.findall(r"(?<![\d.])\d{4}\.\d{4,5}(?!\d)|hep-th/\d{7}", folded)


def test_every_id_shaped_string_left_is_one_the_innocent_text_wrote() -> None:
    innocent = " ".join(INNOCENT)
    text = " ".join(f"Claim {spelling}." for spelling, _ in HOSTILE) + " " + innocent

    out, _, _ = _run(list(text))

    assert _id_shaped(out) == _id_shaped(innocent)


def test_an_old_style_id_is_read_under_each_archive_and_no_other_word() -> None:
    bare = re.compile(BARE_ID, re.IGNORECASE)
    beginnings = {name[:end] for name in ARCHIVES for end in range(1, len(name) + 1)}

    read = {word for word in beginnings if bare.fullmatch(f"{word}/0101001")}

    assert read == set(ARCHIVES)


def test_every_beginning_of_an_archive_and_no_other_word_may_still_grow_into_an_id() -> None:
    arriving = re.compile(BARE_ID_PREFIX, re.IGNORECASE)
    beginnings = {name[:end] for name in ARCHIVES for end in range(1, len(name) + 1)}
    longer = {word + letter for word in beginnings for letter in "abcdefghijklmnopqrstuvwxyz-"}

    held = {word for word in beginnings | longer if arriving.fullmatch(word)}

    assert held == beginnings
