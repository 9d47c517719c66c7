"""What a paper page tells machines in its head: the Highwire Press `citation_*` tags that
reference managers read (Zotero's connector, Google Scholar), schema.org's ScholarlyArticle
as JSON-LD, Open Graph and Twitter card tags, and the description.

Everything comes from the paper's record as the page shows it; the template escapes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    if paper["url"]:
        names.append(("citation_arxiv_id", paper["id"]))
        names.append(("citation_pdf_url", paper["pdf_url"]))
        names.append(("citation_abstract_html_url", paper["url"]))
    if paper["doi"]:
        names.append(("citation_doi", paper["doi"]))
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
