"""A note's passage found again by its words: on the page nearest the one it was made on,
after the paper's text moved; not found once its words are gone; over HTTP on a real PDF."""

from __future__ import annotations

import pytest

from chat.service.web.papers.anchors import find_quote, relocate
from ingest.index.records import Box
from tests.chat.service.routes.notes.conftest import make_note
from tests.support.running.server import Api, fake_llm_fixture, fresh_upstream_fixture
from tests.support.worlds.reader import FID_PDF, first_abstract_id, reader_index, reader_web

pytestmark = pytest.mark.timeout(300)

__all__ = ["fake_llm_fixture", "fresh_upstream_fixture", "reader_index", "reader_web"]

QUOTE = "the encoder processes each passage independently"
BEFORE = ["Title and abstract. " + QUOTE + ", then the decoder attends.", "Results.", "Refs."]
# The same paper read anew: a page was added in front, and a line break now splits a word.
AFTER = ["Title.", "Abstract.", "the encoder pro-\ncesses each passage  independently", "Refs."]


def _boxes(page: int, ranges: list[tuple[int, int]]) -> list[Box]:
    return [Box(page, start / 100, 0.1, end / 100, 0.2) for start, end in ranges]


def test_a_quote_is_found_on_its_own_page_first() -> None:
    texts = [QUOTE, "Elsewhere.", QUOTE]

    found = find_quote(QUOTE, 3, texts)

    assert found == (3, [(0, len(QUOTE))])


def test_a_quote_whose_text_moved_is_found_on_its_new_page_with_boxes_there() -> None:
    assert find_quote(QUOTE, 1, BEFORE) is not None

    place = relocate(QUOTE, 1, AFTER, _boxes)

    assert place is not None
    assert place.page == 3
    assert [box.page for box in place.boxes] == [3]


def test_a_quote_no_longer_in_the_paper_is_not_found() -> None:
    rewritten = ["Title.", "The encoder reads all passages together.", "Refs."]

    place = relocate(QUOTE, 2, rewritten, _boxes)

    assert place is None


def _a_sentence_on(reader_web: Api, page: int) -> str:
    _, texts = reader_web.services.pdf_pages.page_texts(FID_PDF)
    words = texts[page - 1].split()
    return " ".join(words[40:52])


def test_a_paper_listing_finds_each_anchor_on_the_reader_pages_now(reader_web: Api) -> None:
    quote = _a_sentence_on(reader_web, 3)
    old_box = {"page": 1, "x0": 0.1, "y0": 0.1, "x1": 0.9, "y1": 0.12}
    with reader_web.key_client() as client:
        make_note(client, FID_PDF, "moved", anchor={"page": 1, "quote": quote, "boxes": [old_box]})
        make_note(client, FID_PDF, "gone", anchor={"page": 2, "quote": "zebra quartz " * 4})
        make_note(client, FID_PDF, "on the paper")

        listed = client.get("/api/notes", params={"paper_id": FID_PDF}).json()["notes"]
        everywhere = client.get("/api/notes").json()["notes"]

    moved, gone, whole = listed
    assert moved["anchor"]["anchored"] is True
    assert moved["anchor"]["page"] == 3
    assert {box["page"] for box in moved["anchor"]["boxes"]} == {3}
    assert gone["anchor"]["anchored"] is False
    assert gone["anchor"]["page"] == 2
    assert whole["anchor"] is None
    assert everywhere[0]["anchor"]["page"] == 1
    assert everywhere[0]["anchor"]["anchored"] is None


def test_a_note_on_a_paper_without_pages_is_listed_unanchored(reader_web: Api) -> None:
    paper_id = first_abstract_id()
    with reader_web.key_client() as client:
        make_note(client, paper_id, "abstract only", anchor={"page": 1, "quote": "anything"})

        listed = client.get("/api/notes", params={"paper_id": paper_id})

    assert listed.status_code == 200
    assert listed.json()["notes"][0]["anchor"]["anchored"] is False
