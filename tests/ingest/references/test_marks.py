"""Citation marks read from a page's text as PDFium gives it: numbers in brackets, authors
and years in parentheses, narrative citations, and text that only looks like them."""

from __future__ import annotations

from ingest.references.marks import MAX_NUMBERS, Cite, Mark, find_marks, numbers_of


def _cited(marks: list[Mark]) -> list[tuple[str, list[int | None]]]:
    return [(mark.text, [cite.number for cite in mark.cites]) for mark in marks]


def test_numbers_in_brackets_are_read_with_their_ranges_and_lists() -> None:
    text = "as in [12] and later [3-5], then [3, 7, 9] and [1, 5\u20137]."

    marks = find_marks(text)

    assert _cited(marks) == [
        ("[12]", [12]),
        ("[3-5]", [3, 4, 5]),
        ("[3, 7, 9]", [3, 7, 9]),
        ("[1, 5\u20137]", [1, 5, 6, 7]),
    ]
    assert {mark.style for mark in marks} == {"numeric"}
    assert text[marks[1].start : marks[1].end] == "[3-5]"


def test_a_range_to_a_thousand_cites_no_more_than_the_bound() -> None:
    [mark] = find_marks("every work [1-1000] ever")

    assert len(mark.cites) == MAX_NUMBERS
    assert mark.cites[-1].number == MAX_NUMBERS
    assert numbers_of("9-3") == [9, 3]
    assert len(numbers_of(", ".join(str(n) for n in range(500)))) == MAX_NUMBERS


def test_a_bracket_of_zero_or_of_words_is_no_citation() -> None:
    marks = find_marks("in the interval [0, 1] with weights [w1, w2] and E[x] and [a]")

    assert marks == []


def test_each_author_year_citation_of_a_parenthesis_is_a_mark_of_its_own() -> None:
    text = "retrieval (Lewis et al., 2020; Guu et al., 2020a) helps"

    marks = find_marks(text)

    assert [(m.text, m.style) for m in marks] == [
        ("Lewis et al., 2020", "author-year"),
        ("Guu et al., 2020a", "author-year"),
    ]
    assert marks[1].cites == (Cite(None, ("Guu",), True, 2020, "a"),)
    assert text[marks[0].start : marks[0].end] == "Lewis et al., 2020"


def test_a_narrative_citation_spans_the_names_and_the_year() -> None:
    text = "as Karpukhin et al. (2020) and Lee and Toutanova [2019] showed"

    marks = find_marks(text)

    assert [(m.text, m.style) for m in marks] == [
        ("Karpukhin et al. (2020)", "narrative"),
        ("Lee and Toutanova [2019]", "narrative"),
    ]
    assert marks[1].cites == (Cite(None, ("Lee", "Toutanova"), False, 2019, ""),)


def test_every_year_of_a_citation_is_a_cite_of_its_own() -> None:
    text = "(Mikolov et al., 2013a;b), (Rajpurkar et al., 2016; 2018), Peters et al. (2017, 2018a)"

    marks = find_marks(text)

    assert [[(c.year, c.suffix) for c in m.cites] for m in marks] == [
        [(2013, "a"), (2013, "b")],
        [(2016, ""), (2018, "")],
        [(2017, ""), (2018, "a")],
    ]


def test_names_with_particles_and_three_authors_are_read_whole() -> None:
    marks = find_marks("(van den Oord et al., 2018) (Lee, Chang, and Toutanova, 2019)")

    assert [m.cites[0].surnames for m in marks] == [
        ("van den Oord",),
        ("Lee", "Chang", "Toutanova"),
    ]


def test_malformed_years_and_words_that_are_no_names_make_no_mark() -> None:
    text = (
        "(Lewis et al., 20201) (Lewis et al., 2O20) (Lewis et al., 3020) Table 2 (2019) "
        "(in 2019) (Figure 3, 2019) (see Section 4, 2020) In (2019) Lewis et al., 2020"
    )

    assert find_marks(text) == []


def test_a_mark_broken_over_lines_is_read_whole_at_its_place() -> None:
    text = "pretrained model (Devlin et al.,\r\n2019) and a dual-encoder (Bromley\r\net al., 1994)"

    marks = find_marks(text)

    assert [m.text for m in marks] == ["Devlin et al., 2019", "Bromley et al., 1994"]
    assert text[marks[0].start : marks[0].end] == "Devlin et al.,\r\n2019"


def test_an_accent_drawn_apart_from_its_letter_is_read_through_and_the_place_kept() -> None:
    text = "NCBI-disease Dogan et al. \u02d8 (2014) next"

    [mark] = find_marks(text)

    assert mark.text == "Dogan et al. (2014)"
    assert text[mark.start : mark.end] == "Dogan et al. \u02d8 (2014)"
