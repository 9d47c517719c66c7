"""Atom feeds (RFC 4287) of papers: the newest overall, in a category, by a researcher, for
a saved search, and a user's private feed of the papers new to their follows.

Built with ElementTree, so every title, name and abstract is escaped; any
characters XML 1.0 forbids (control characters from a PDF or a feed's address) are dropped
first, from text and attributes alike.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from chat.library.papers import page_path
from ingest.index.names.people import written_names
from ingest.index.records import Paper, arxiv_url
from ingest.index.tex import readable_tex

ATOM = "http://www.w3.org/2005/Atom"
DCTERMS = "http://purl.org/dc/terms/"
MEDIA_TYPE = "application/atom+xml"
# Entries in one feed: a reader polls it, it is not an archive.
FEED_ENTRIES = 50
# What XML 1.0 forbids anywhere in a document, text or attribute: most C0 controls, lone
# surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Feed:
    """What a feed is about: its title, its own address, the page it follows, its permanent
    id (its address when ""), and the time it is dated when it has no entries: its source's
    latest change (RFC 3339; the time it is built when "")."""

    title: str
    self_url: str
    page_url: str
    id: str = ""
    quiet_since: str = ""


def timestamp(iso: str) -> str:
    """A catalog date that names a day (`2019-07-03`, or a full time) as an RFC 3339 time in
    UTC; "" for a month alone (`2019-07`: Atom's dates are times, and no day is made up) or
    no date."""
    value = iso.strip()
    if len(value) < len("YYYY-MM-DD"):
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_updated(paper: Paper) -> str:
    """When the record last changed, as precisely as it says: its latest version's day (or
    its record's update), else its first version's; "" when neither names a day."""
    return max(timestamp(paper.updated), timestamp(paper.published))


def _text(value: str) -> str:
    return _NOT_XML.sub("", value)


def _add(parent: ET.Element, tag: str, text: str = "", **attributes: str) -> ET.Element:
    clean = {name: _text(value) for name, value in attributes.items()}
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", clean)
    if text:
        element.text = _text(text)
    return element


def atom_feed(
    feed: Feed,
    papers: Sequence[Paper],
    site_url: str,
    summaries: Mapping[str, str] | None = None,
    pages: Mapping[str, str] | None = None,
) -> bytes:
    """The feed of `papers` (newest first), each entry linking to its page on `site_url`
    (its path in `pages`, by paper id, when it has one there), dated by its record; the
    feed dated by its newest entry. An entry's summary is its paper's abstract, or its
    text in `summaries` (by paper id) when it has one there."""
    ET.register_namespace("", ATOM)
    ET.register_namespace("dcterms", DCTERMS)
    root = ET.Element(f"{{{ATOM}}}feed")
    _add(root, "id", feed.id or feed.self_url)
    _add(root, "title", feed.title)
    quiet = feed.quiet_since or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    stamps = [entry_updated(p) or quiet for p in papers]
    _add(root, "updated", max(stamps, default=quiet))
    _add(root, "link", rel="self", type=MEDIA_TYPE, href=feed.self_url)
    _add(root, "link", rel="alternate", type="text/html", href=feed.page_url)
    _add(_add(root, "author"), "name", "paperchat")
    _add(root, "generator", "paperchat")
    for paper, stamp in zip(papers, stamps, strict=True):
        summary = (summaries or {}).get(paper.id, paper.abstract)
        page = f"{site_url.rstrip('/')}{(pages or {}).get(paper.id) or page_path(paper)}"
        _entry(root, paper, stamp, page, summary)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document


def _entry(root: ET.Element, paper: Paper, stamp: str, page: str, summary: str) -> None:
    entry = _add(root, "entry")
    _add(entry, "id", arxiv_url(paper.id) if paper.is_arxiv else page)
    _add(entry, "title", readable_tex(paper.title) or paper.id)
    _add(entry, "updated", stamp)
    if timestamp(paper.published):
        _add(entry, "published", timestamp(paper.published))
    elif paper.published:
        # Only the month of the first version is known: said in Dublin Core's W3CDTF, which
        # has a month precision, instead of a day Atom's `published` would need.
        ET.SubElement(entry, f"{{{DCTERMS}}}issued").text = _text(paper.published)
    for name in written_names(paper.authors) or ["unknown"]:
        _add(_add(entry, "author"), "name", readable_tex(name))
    _add(entry, "link", rel="alternate", type="text/html", href=page)
    for category in paper.categories:
        _add(entry, "category", term=category)
    if summary:
        _add(entry, "summary", readable_tex(summary), type="text")
