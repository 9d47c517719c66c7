"""One text found in another by letters and digits: what the body stage does to a PDF's
text (hyphens, ligatures, white space, dropped debris, moved passages) does not matter."""

from __future__ import annotations

from ingest.pdf.alignment import find_text, keys_of


def test_hyphenation_repaired_by_the_body_stage_still_matches() -> None:
    page = "the represen-\ntation of each token is transfor-\nmed by the encoder stack"

    spans, coverage = find_text("the representation of each token is transformed", page)

    assert coverage == 1.0
    assert spans == [(0, page.index("stack") - len(" by the encoder "))]


def test_ligatures_and_white_space_do_not_matter() -> None:
    page = "We ﬁnd that the e\ufb00ect of ﬂow   is signiﬁcant\nfor the ﬁnal model"

    spans, coverage = find_text("we find that the effect of flow is significant for the", page)

    assert coverage == 1.0
    assert page[spans[0][0] : spans[0][1]].startswith("We ﬁnd")


def test_debris_the_body_stage_dropped_is_bridged() -> None:
    page = (
        "Retrieval augments the generator with passages 7 Under review as a conference paper "
        "fetched from a large corpus at every step of decoding."
    )
    chunk = (
        "Retrieval augments the generator with passages fetched from a large corpus at every "
        "step of decoding."
    )

    spans, coverage = find_text(chunk, page)

    assert coverage > 0.95
    assert spans[0][0] == 0
    assert spans[-1][1] == len(page) - 1


def test_a_passage_moved_by_the_body_stage_is_found_in_both_places() -> None:
    first = "the first column ends with this sentence about dense retrieval models"
    second = "and the second column starts with a sentence about sparse lexical matching"
    page = f"{second} SOME FIGURE CAPTION IN BETWEEN THAT IS LONG ENOUGH TO SPLIT {first}"

    spans, coverage = find_text(f"{first} {second}", page)

    assert coverage == 1.0
    assert len(spans) == 2


def test_keys_keep_only_letters_and_digits_folded() -> None:
    keys, where = keys_of("Ab-c\u00a0ﬁ 2")

    assert keys == "abcfi2"
    assert where == [0, 1, 3, 5, 5, 7]
