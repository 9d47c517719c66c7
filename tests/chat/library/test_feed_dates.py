"""Feeds dated by their records: an entry's `published` is its first version's day and its
`updated` its latest version's (or its record's update), never a day the record does not
give; the feed is dated by its newest entry, an empty one by its source; every document valid
by RFC 4287's RELAX NG grammar."""

from __future__ import annotations

import pytest

from chat.library.feeds import Feed, atom_feed
from ingest.index.records import Paper
from tests.support.atom import valid_atom

ATOM = "{http://www.w3.org/2005/Atom}"
DCTERMS = "{http://purl.org/dc/terms/}"
SITE = "https://papers.example.org"
FEED = Feed(
    title="paperchat: the newest papers",
    self_url=f"{SITE}/feeds/latest.atom",
    page_url=f"{SITE}/",
)


def _paper(paper_id: str, published: str, updated: str) -> Paper:
    return Paper(
        id=paper_id,
        title=f"Paper {paper_id}",
        abstract="An abstract.",
        authors="Ada Author, Bo Author",
        categories=("cs.CL",),
        published=published,
        updated=updated,
    )


def _entries(document: bytes) -> dict[str, dict[str, str | None]]:
    root = valid_atom(document)
    return {
        str(entry.findtext(f"{ATOM}id")): {
            "published": entry.findtext(f"{ATOM}published"),
            "updated": entry.findtext(f"{ATOM}updated"),
            "issued": entry.findtext(f"{DCTERMS}issued"),
        }
        for entry in root.iter(f"{ATOM}entry")
    }


def test_entries_carry_their_own_first_and_latest_versions_days() -> None:
    papers = [
        _paper("2503.00001", "2025-03-04", "2025-06-30"),
        _paper("2502.00002", "2025-02-11", "2025-02-11"),
    ]

    entries = _entries(atom_feed(FEED, papers, SITE))

    assert entries["https://arxiv.org/abs/2503.00001"] == {
        "published": "2025-03-04T00:00:00Z",
        "updated": "2025-06-30T00:00:00Z",
        "issued": None,
    }
    assert entries["https://arxiv.org/abs/2502.00002"]["updated"] == "2025-02-11T00:00:00Z"


def test_a_first_version_known_by_its_month_gets_no_invented_day() -> None:
    paper = _paper("2503.00003", "2025-03", "2025-10-13")

    document = atom_feed(FEED, [paper], SITE)

    entry = _entries(document)["https://arxiv.org/abs/2503.00003"]
    assert entry == {"published": None, "updated": "2025-10-13T00:00:00Z", "issued": "2025-03"}
    assert b"2025-03-01" not in document


def test_the_feed_is_dated_by_its_newest_entry_not_its_first() -> None:
    papers = [
        _paper("2504.00001", "2025-04-02", "2025-04-02"),
        _paper("2503.00001", "2025-03-04", "2025-09-01"),
    ]

    root = valid_atom(atom_feed(FEED, papers, SITE))

    assert root.findtext(f"{ATOM}updated") == "2025-09-01T00:00:00Z"


def test_an_empty_feed_is_dated_by_its_source_and_keeps_its_own_id() -> None:
    feed = Feed(
        title="paperchat: latest for you",
        self_url=f"{SITE}/feeds/private/s3cret-token.atom",
        page_url=f"{SITE}/latest",
        id="urn:uuid:0f8e2b1c-5d4a-5e6f-8a9b-0c1d2e3f4a5b",
        quiet_since="2026-06-16T00:00:00Z",
    )

    root = valid_atom(atom_feed(feed, [], SITE))

    assert root.findtext(f"{ATOM}updated") == "2026-06-16T00:00:00Z"
    assert root.findtext(f"{ATOM}id") == feed.id
    assert root.find(f"{ATOM}entry") is None


def test_an_empty_feed_without_a_source_date_is_not_dated_1970() -> None:
    root = valid_atom(atom_feed(FEED, [], SITE))

    assert not str(root.findtext(f"{ATOM}updated")).startswith("1970")


def test_the_grammar_refuses_a_feed_without_updated() -> None:
    document = atom_feed(FEED, [_paper("2503.00001", "2025-03-04", "")], SITE)
    broken = document.replace(b"<updated>2025-03-04T00:00:00Z</updated>", b"", 1)

    with pytest.raises(AssertionError, match="updated"):
        valid_atom(broken)
