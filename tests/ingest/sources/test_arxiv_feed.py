"""Reading the export API's Atom feed, from feeds written as the arXiv stand-in writes them."""

from __future__ import annotations

import pytest

from ingest.sources.arxiv_feed import ArxivApiError, parse_feed
from tests.fakes.arxiv import feed_xml

pytestmark = pytest.mark.timeout(10)


def test_blank_entry_for_an_unknown_id_yields_no_paper() -> None:
    blank = "  <entry>\n    <id>http://arxiv.org/abs/2301.99999</id>\n    <title/>\n  </entry>\n"
    xml = feed_xml([blank], query="id_list=2301.99999", total=1, start=0, per_page=1)

    page = parse_feed(xml, "http://127.0.0.1/api/query")

    assert (page.papers, page.errors, page.entry_count) == ((), (), 1)


def test_unreadable_feed_raises_naming_its_url() -> None:
    with pytest.raises(ArxivApiError) as raised:
        parse_feed(b"<html>Service Unavailable", "http://127.0.0.1/q")

    assert str(raised.value).startswith("cannot parse the Atom feed from http://127.0.0.1/q: ")
