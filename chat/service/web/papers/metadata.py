"""What a paper page tells machines in its head: the Highwire Press `citation_*` tags that
reference managers read (Zotero's connector, Google Scholar), schema.org's ScholarlyArticle
as JSON-LD, Open Graph and Twitter card tags, and the description.

An arXiv paper is described as Zotero's Embedded Metadata translator reads a preprint:
`DC.type` "preprint" (the item type), `citation_doi` arXiv's DOI, `citation_technical_report_number`
its archive id (`arXiv:ID`, kept as the preprint's Archive ID), `citation_publisher` arXiv
(its Repository), `citation_public_url` the arxiv.org abstract page (its URL),
`citation_abstract` the whole abstract (without it Zotero falls back to the cut description).

Everything comes from the paper's record as the page shows it; the template escapes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chat.library.identifiers import ARXIV_PUBLISHER, archive_id, arxiv_doi, one_line
from ingest.index.tex import readable_tex

# A description's length at most, as search engines show it.
MAX_DESCRIPTION_CHARS = 300


@dataclass(frozen=True)
class PageMetadata:
    """A page's head for machines: its description, `<meta name>` and `<meta property>`
    pairs in order, and its JSON-LD object (None for none)."""

    description: str
    names: list[tuple[str, str]]
    properties: list[tuple[str, str]]
    json_ld: dict[str, Any] | None = None


def description(text: str) -> str:
    """`text` on one line, cut at a word to at most `MAX_DESCRIPTION_CHARS`, with "…"."""
    line = " ".join(text.split())
    if len(line) <= MAX_DESCRIPTION_CHARS:
        return line
    return line[: MAX_DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"


def citation_date(iso: str | None) -> str:
    """`2019-07-03` as Highwire's `2019/07/03` (`2019/07` for a month alone); "" for none."""
    return (iso or "").strip().replace("-", "/")


def paper_metadata(
    paper: dict[str, Any], authors: list[str], page_url: str, site_name: str
) -> PageMetadata:
    """The head of the page of `paper` (a `paper_record`), its `authors` as the page writes
    them, at the absolute `page_url`."""
    title = readable_tex(paper["title"])
    summary = description(readable_tex(paper["abstract"]))
    names = [("citation_title", title)]
    names += [("citation_author", name) for name in authors]
    if paper["published"]:
        names.append(("citation_publication_date", citation_date(paper["published"])))
    if paper["abstract"]:
        names.append(("citation_abstract", one_line(paper["abstract"])))
    names += _identity(paper)
    if paper["journal_ref"]:
        names.append(("citation_journal_title", paper["journal_ref"]))
    names += [
        ("twitter:card", "summary"),
        ("twitter:title", title),
        ("twitter:description", summary),
    ]
    properties = [
        ("og:type", "article"),
        ("og:site_name", site_name),
        ("og:title", title),
        ("og:description", summary),
        ("og:url", page_url),
    ]
    if paper["published"]:
        properties.append(("article:published_time", paper["published"]))
    return PageMetadata(
        summary, names, properties, _scholarly_article(paper, title, authors, page_url)
    )


def _identity(paper: dict[str, Any]) -> list[tuple[str, str]]:
    """Where the paper lives: for an arXiv paper its arXiv id, DOI, archive id, PDF and
    arxiv.org page, as a preprint; else the DOI its record gives, if any."""
    if not paper["url"]:
        return [("citation_doi", paper["doi"])] if paper["doi"] else []
    return [
        ("DC.type", "preprint"),
        ("DC.identifier", f"doi:{arxiv_doi(paper['id'])}"),
        ("citation_arxiv_id", paper["id"]),
        ("citation_doi", arxiv_doi(paper["id"])),
        ("citation_technical_report_number", archive_id(paper["id"])),
        ("citation_publisher", ARXIV_PUBLISHER),
        ("citation_pdf_url", paper["pdf_url"]),
        ("citation_abstract_html_url", paper["url"]),
        ("citation_public_url", paper["url"]),
    ]


def _scholarly_article(
    paper: dict[str, Any], title: str, authors: list[str], page_url: str
) -> dict[str, Any]:
    """schema.org's ScholarlyArticle for the paper."""
    article: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "@id": page_url,
        "url": page_url,
        "headline": title,
        "name": title,
        "abstract": " ".join(readable_tex(paper["abstract"]).split()),
        "author": [{"@type": "Person", "name": name} for name in authors],
    }
    if paper["published"]:
        article["datePublished"] = paper["published"]
    if paper["updated"]:
        article["dateModified"] = paper["updated"]
    if paper["categories"]:
        article["keywords"] = paper["categories"]
    identifiers = []
    if paper["url"]:
        identifiers.append({"@type": "PropertyValue", "propertyID": "arXiv", "value": paper["id"]})
        article["sameAs"] = paper["url"]
        article["encoding"] = {
            "@type": "MediaObject",
            "contentUrl": paper["pdf_url"],
            "encodingFormat": "application/pdf",
        }
    if paper["doi"]:
        identifiers.append({"@type": "PropertyValue", "propertyID": "DOI", "value": paper["doi"]})
    if identifiers:
        article["identifier"] = identifiers
    return article
