"""arXiv references outside brackets, judged by the citation guard like bracketed ones."""

from __future__ import annotations

import re

import pytest

from chat.rag.citations.guard import CITATION_PATTERN, CitationGuard
from tests.support.worlds.sources import guarded, make_source

pytestmark = pytest.mark.timeout(60)

SOURCES = (
    make_source(1, "2203.12533", page=2),
    make_source(2, "hep-th/9901001", page=2),
)


def _split_free(run: tuple[str, list[str], list[str]]) -> tuple[str, list[str], set[str]]:
    """What must not depend on how the text is split: the made-up ids are listed in the
    order each stage finds them, which may differ."""
    out, cited, dropped = run
    return out, cited, set(dropped)


def _run(pieces: list[str]) -> tuple[str, list[str], list[str]]:
    return guarded(pieces, SOURCES)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As arXiv:2203.12533 shows, it helps.", "As [arXiv:2203.12533] shows, it helps."),
        ("As arXiv: 2203.12533v2 shows.", "As [arXiv:2203.12533] shows."),
        ("As arXiv 2203.12533 shows.", "As [arXiv:2203.12533] shows."),
        ("It helps (arXiv:2203.12533).", "It helps [arXiv:2203.12533]."),
        ("See https://arxiv.org/abs/2203.12533.", "See [arXiv:2203.12533]."),
        ("See arxiv.org/pdf/2203.12533v1.pdf now.", "See [arXiv:2203.12533] now."),
        ("DOI 10.48550/arXiv.2203.12533.", "DOI [arXiv:2203.12533]."),
        ("Old arXiv:hep-th/9901001v3 too.", "Old [arXiv:hep-th/9901001] too."),
        ("As \u0430rXiv:2203.12533 shows.", "As [arXiv:2203.12533] shows."),
        ("As ar\u200bXiv:2203.12533 shows.", "As [arXiv:2203.12533] shows."),
    ],
)
def test_prose_reference_to_a_source_becomes_its_citation(text: str, expected: str) -> None:
    out, cited, dropped = _run([text])

    assert out == expected
    assert cited == [SOURCES[0].id if "2203" in text else SOURCES[1].id]
    assert dropped == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As arXiv:9999.99999 shows, it helps.", "As shows, it helps."),
        ("It helps (arXiv:9999.99999).", "It helps."),
        ("It helps (arXiv 9999.99999v2), really.", "It helps, really."),
        ("See https://arxiv.org/abs/9999.99999 for more.", "See for more."),
        ("See http://export.arxiv.org/pdf/9999.99999.pdf.", "See."),
        ("DOI https://doi.org/10.48550/arXiv.9999.99999 here.", "DOI here."),
        ("As \u0430rXiv\uff1a9999.99999 shows.", "As shows."),
        ("As arXiv:9999.99999", "As"),
        ("As arXiv:9999.99999v", "As"),
    ],
)
def test_prose_reference_to_no_source_is_removed_and_listed(text: str, expected: str) -> None:
    out, cited, dropped = _run([text])

    assert out == expected
    assert cited == []
    assert dropped == ["9999.99999"]


@pytest.mark.parametrize(
    "text",
    [
        "The model has 9999.99999 parameters and 2203.12533 tokens.",
        "Papers on arXiv are preprints; arXiv: the server.",
        "An arxiv-style id such as 1234.5678 alone is a number.",
        "Mail me@arxiv:9999.99999 or path/arXiv:9999.99999 stay.",
        "A [arXiv:2203.12533] chip is not read twice.",
        "A link [the abstract](https://arxiv.org/abs/9999.99999) is the dock's to judge.",
    ],
)
def test_text_that_is_no_prose_reference_passes_unchanged(text: str) -> None:
    out, _, dropped = _run([text])

    assert out == text
    assert dropped == []


SAMPLES = [
    "As arXiv:2203.12533v2 shows (arXiv:9999.99999), see https://arxiv.org/pdf/2203.12533.pdf.",
    "Old arXiv hep-th/9901001 and 10.48550/arXiv.9999.99999 and a [1] and arXiv: x.",
    "\u0430rXiv:9999.99999v is gone; (arXiv:2203.12533) stays, as does a arxiv paper.",
    "[Read](https://arxiv.org/abs/9999.99999) it, not (https://arxiv.org/abs/9999.99999).",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_any_split_into_two_pieces_gives_the_whole_output(text: str) -> None:
    whole = _run([text])

    for cut in range(len(text) + 1):
        assert _split_free(_run([text[:cut], text[cut:]])) == _split_free(whole), cut


@pytest.mark.parametrize("text", SAMPLES)
def test_feeding_one_character_at_a_time_gives_the_whole_output(text: str) -> None:
    assert _split_free(_run(list(text))) == _split_free(_run([text]))


def test_text_that_cannot_begin_a_reference_is_not_held_back() -> None:
    guard = CitationGuard(SOURCES)

    assert guard.feed("Retrieval helps") == "Retrieval helps"
    assert guard.feed(" as shown in arX") == " as shown in"
    assert guard.feed("iv:2203.1253") == ""
    assert guard.feed("3 here.") == " [arXiv:2203.12533] here."


def test_a_word_ended_by_a_space_is_not_held_as_the_start_of_an_old_style_id() -> None:
    """ "so" begins "solv-int/...", "cs" an id under cs/; followed by a space they cannot,
    so a model that stalls after them has shown them already."""
    guard = CitationGuard(SOURCES)

    shown = [guard.feed(piece) for piece in ("Partial ", "answer ", "so ", "far ", "cs ")]

    assert "".join(shown) == "Partial answer so far cs"
    assert guard.feed("hep-") == ""
    assert guard.feed("th/9901001 ") == " hep-th/9901001"  # a source, written as it was


def test_every_arxiv_id_left_in_the_output_is_a_cited_source() -> None:
    text = " ".join(SAMPLES) + " Also arXiv:1706.03762 and https://arxiv.org/abs/1111.22222."

    out, cited, dropped = _run(list(text))

    prose = re.sub(r"\]\([^)]*\)", "]", out)  # the dock judges links' targets
    left = set(re.findall(r"\d{4}\.\d{4,5}|hep-th/\d{7}", prose))
    assert left == set(cited) == {"2203.12533", "hep-th/9901001"}
    assert {"9999.99999", "1706.03762", "1111.22222"} <= set(dropped)
    assert all(m.group(2) in cited for m in re.finditer(CITATION_PATTERN, out))


@pytest.mark.parametrize(
    ("text", "expected", "dropped"),
    [
        ("Claim [arXiv:9999.\n99999] more.", "Claim more.", ["9999.99999"]),
        ("Claim [arXiv:9999 .\n 99999] more.", "Claim more.", ["9999.99999"]),
        ("Claim [arXiv:2203.\n12533] more.", "Claim [arXiv:2203.12533] more.", []),
        ("Claim <arXiv:9999.99999> more.", "Claim more.", ["9999.99999"]),
        ("Claim {arXiv:9999.99999} more.", "Claim more.", ["9999.99999"]),
        ("See <https://arxiv.org/abs/2203.12533> now.", "See [arXiv:2203.12533] now.", []),
        ("If a<b and {x} then <c>.", "If a<b and {x} then <c>.", []),
    ],
)
def test_an_id_split_at_its_point_or_wrapped_in_angle_brackets_is_judged_whole(
    text: str, expected: str, dropped: list[str]
) -> None:
    for pieces in ([text], list(text)):
        out, _, missing = _run(pieces)

        assert (out, missing) == (expected, dropped)
