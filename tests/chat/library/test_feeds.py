"""Atom feeds read back by a strict XML parser (lxml): whatever the feed's address, a record's
title or its categories hold, the document is XML."""

from __future__ import annotations

import pytest
from lxml import etree

from chat.library.feeds import Feed, atom_feed
from ingest.index.records import Paper

ATOM = "{http://www.w3.org/2005/Atom}"
# Each is a character XML 1.0 allows in no document, escaped or not.
FORBIDDEN = ["\x00", "\x01", "\x0b", "\x0c", "\x1f", "\ufffe", "\uffff"]


@pytest.mark.parametrize("bad", FORBIDDEN)
def test_a_feed_whose_address_and_record_hold_control_characters_is_xml(bad: str) -> None:
    feed = Feed(
        title=f"paperchat: papers by Eve{bad}Hostile",
        self_url=f"https://papers.example.org/feeds/researchers/Eve{bad}Hostile.atom",
        page_url=f"https://papers.example.org/authors/Eve{bad}Hostile",
    )
    paper = Paper(
        id="2401.00101",
        title=f"A title{bad}with a control character",
        abstract=f"An abstract{bad}too.",
        authors=f"Eve{bad}Hostile, Bob Plain",
        categories=(f"cs.{bad}CR",),
        published="2024-01-02",
    )

    document = atom_feed(feed, [paper], "https://papers.example.org")

    root = etree.fromstring(document)
    links = [link.get("href") for link in root.iter(f"{ATOM}link")]
    assert links[0] == "https://papers.example.org/feeds/researchers/EveHostile.atom"
    assert root.findtext(f"{ATOM}entry/{ATOM}title") == "A titlewith a control character"
    assert root.find(f"{ATOM}entry/{ATOM}category").get("term") == "cs.CR"
