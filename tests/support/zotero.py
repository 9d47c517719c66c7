"""A page read the way Zotero's web translators read it, written here from their documented
rules: Embedded Metadata for one item (Highwire `citation_*` tags, Dublin Core's type and
identifier), COinS for the papers a list carries (OpenURL 1.0 ContextObjects in
`span.Z3988`), and unAPI (`link[rel=unapi-server]` and `abbr.unapi-id`).

Only the rules that decide what a saved paper keeps are modelled: the item type, the title,
the creators in order, the date, the abstract, the DOI, the archive id (a preprint's
Archive ID is Zotero's base field `number`), the repository (`publisher`) and the URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote

# Embedded Metadata's HIGHWIRE_MAPPINGS, the fields a saved paper keeps.
_HIGHWIRE = {
    "citation_title": "title",
    "citation_publication_date": "date",
    "citation_date": "date",
    "citation_abstract": "abstractNote",
    "citation_doi": "DOI",
    "citation_public_url": "url",
    "citation_technical_report_number": "number",
    "citation_publisher": "publisher",
}
# Item types Zotero knows that a paper page may name in DC.type.
_ITEM_TYPES = {"preprint", "journalArticle", "conferencePaper", "report", "document"}
# A preprint's own names for base fields.
_PREPRINT_FIELDS = {"number": "archiveID", "publisher": "repository"}


@dataclass
class Item:
    item_type: str = ""
    creators: list[str] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class _Page(HTMLParser):
    metas: list[tuple[str, str]] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    coins: list[str] = field(default_factory=list)
    unapi_ids: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        classes = values.get("class", "").split()
        if tag == "meta" and values.get("name") and values.get("content"):
            self.metas.append((values["name"], values["content"]))
        elif tag == "link" and "rel" in values:
            self.links[values["rel"]] = values.get("href", "")
        elif tag == "span" and "Z3988" in classes and values.get("title"):
            self.coins.append(values["title"])
        elif tag == "abbr" and "unapi-id" in classes and values.get("title"):
            self.unapi_ids.append(values["title"])


def _page(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def embedded_item(html: str) -> Item:
    """The item Embedded Metadata saves from a page's meta tags."""
    page = _page(html)
    item = Item()
    hw_type = ""
    for name, content in page.metas:
        if name.lower() == "dc.type" and content in _ITEM_TYPES:
            item.item_type = content
        elif name == "citation_journal_title":
            hw_type = "journalArticle"
        elif name == "citation_title":
            hw_type = hw_type or "journalArticle"
        if name == "citation_author":
            item.creators.append(" ".join(content.split()))
    item.item_type = item.item_type or hw_type or "webpage"
    for name, zotero_field in _HIGHWIRE.items():
        # processFields: the last tag of a name wins.
        for key, content in page.metas:
            if key == name and content.strip():
                item.fields[zotero_field] = " ".join(content.split())
    item.fields.setdefault(
        "url", _first(page.metas, "citation_abstract_html_url") or page.links.get("canonical", "")
    )
    item.fields.setdefault("abstractNote", _first(page.metas, "description"))
    return _typed(item)


def _first(metas: list[tuple[str, str]], name: str) -> str:
    return next((content for key, content in metas if key == name), "")


def _typed(item: Item) -> Item:
    if item.item_type == "preprint":
        for base, own in _PREPRINT_FIELDS.items():
            if base in item.fields:
                item.fields[own] = item.fields.pop(base)
    return item


def coins_items(html: str) -> list[Item]:
    """The items Zotero's COinS translator reads from a page's `span.Z3988`, in order."""
    return [_context_object(title) for title in _page(html).coins]


def _context_object(co: str) -> Item:
    """OpenURL's parseContextObject: the format gives the type, then each key its field."""
    parts = co.split("&")
    item = Item()
    if "rft_val_fmt=info:ofi/fmt:kev:mtx:journal" in [unquote(p) for p in parts]:
        item.item_type = "journalArticle"
    for part in parts:
        key, _, raw = part.partition("=")
        # As Zotero decodes: a plus, even an encoded one, is a space.
        value = unquote(re.sub("\\+|%2[bB]", " ", raw))
        if not value:
            continue
        if key == "rft_id" and value.lower().startswith("info:doi"):
            item.fields["DOI"] = value[9:]
        elif key == "rft_id" and value.startswith(("http://", "https://")):
            item.fields["url"] = value
        elif key in ("rft.atitle", "rft.date", "rft.jtitle", "rft.pub", "rft.description"):
            name = {"rft.atitle": "title", "rft.date": "date", "rft.jtitle": "publicationTitle"}
            item.fields[name.get(key, key.removeprefix("rft."))] = value
        elif key == "rft.au":
            item.creators.append(value)
    return item


def unapi(html: str) -> tuple[str, list[str]]:
    """The unAPI server a page names and the ids it lists."""
    page = _page(html)
    return page.links.get("unapi-server", ""), page.unapi_ids
