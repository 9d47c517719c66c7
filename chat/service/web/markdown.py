"""The pages as Markdown, for language models and agents: what `Accept: text/markdown` or a
`.md` suffix gets instead of the HTML, the same content without the page around it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fastapi.responses import Response

from chat.library.dates import dated, shown
from chat.service.web.listings.pagination import Shown

MARKDOWN_TYPE = "text/markdown; charset=utf-8"
# A page's path with this at its end is the page as Markdown: `/papers/2203.12533.md`.
MARKDOWN_SUFFIX = ".md"
# Pages that answer in HTML or Markdown by the request's `Accept` say so to caches.
VARY_ACCEPT = {"Vary": "Accept"}

_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def wants_markdown(accept: str) -> bool:
    """Whether an `Accept` header prefers `text/markdown` to `text/html` (a browser's, which
    names no Markdown, does not)."""
    weights: dict[str, float] = {}
    for part in accept.lower().split(","):
        kind, *params = (p.strip() for p in part.split(";"))
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[kind] = max(weight, weights.get(kind, 0.0))
    markdown = weights.get("text/markdown", 0.0)
    return markdown > 0 and markdown >= weights.get("text/html", 0.0)


def markdown_response(text: str, status_code: int = 200) -> Response:
    return Response(text, status_code=status_code, media_type=MARKDOWN_TYPE, headers=VARY_ACCEPT)


def escaped(text: str) -> str:
    """`text` on one line, with Markdown's and HTML's special characters escaped."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _link(text: str, url: str) -> str:
    return f"[{escaped(text)}](<{url.replace('>', '%3E')}>)"


def _section(title: str, lines: Iterable[str]) -> list[str]:
    listed = list(lines)
    return [f"## {title}", "", *listed, ""] if listed else []


def paper_markdown(page: dict[str, Any], base: str) -> str:
    """The paper page's content (the context `paper.html` is rendered with) as Markdown."""
    paper = page["paper"]
    facts = [f"- arXiv: {_link(paper['id'], paper['url'])}" if paper["url"] else ""]
    facts += [
        f"- Authors: {', '.join(escaped(n) for n in page['authors'])}" if page["authors"] else "",
        f"- Date: {dated(paper['published'], paper['updated'])}" if paper["published"] else "",
        f"- Categories: {', '.join(paper['categories'])}" if paper["categories"] else "",
        f"- PDF: <{paper['pdf_url']}>" if paper["pdf_url"] else "",
        f"- DOI: {escaped(paper['doi'])}" if paper["doi"] else "",
        f"- Journal reference: {escaped(paper['journal_ref'])}" if paper["journal_ref"] else "",
        f"- BibTeX: <{base}/papers/{paper['id']}/bibtex>",
        f"- Full text indexed: {'yes' if paper['has_fulltext'] else 'no, abstract only'}",
    ]
    lines = [f"# {escaped(page['title'])}", "", *(f for f in facts if f), ""]
    lines += _section("Abstract", (f"{escaped(p)}\n" for p in page["abstract"]))
    lines += _section(
        f"References ({len(page['references'])})",
        (
            f"{n}. {_paper_link(r['title'], r['href'], base)}"
            + (f". {escaped(r['authors'])}" if r["authors"] else "")
            + (f" ({r['year']})" if r["year"] else "")
            for n, r in enumerate(page["references"], 1)
        ),
    )
    lines += _section(
        "Cited by (in this library)",
        (f"- {_paper_link(c['title'], c['href'], base)}" for c in page["citations"]),
    )
    lines += _section(
        "Discussed in the library",
        (
            f"- {_paper_link(d['title'], d['href'], base)} ({d['year']})"
            + "".join(
                f"\n  - page {said['page']}: \u201c{escaped(said['sentence'])}\u201d"
                + (f" (about page {said['placed_on']} here)" if said["placed_on"] else "")
                for said in d["sentences"]
            )
            for d in page["discussions"] or ()
        ),
    )
    lines += _section(
        "Related papers",
        (
            f"- {_paper_link(r['title'], r['href'], base)} ({escaped('; '.join(r['reasons']))})"
            for r in page["related"]
        ),
    )
    return "\n".join(lines).rstrip() + "\n"


def _paper_link(title: str, href: str | None, base: str) -> str:
    """`title` linked to its page at `href` (a canonical path), or not linked without one."""
    return _link(title, f"{base}{href}") if href else escaped(title)


def listed_paper(paper: Mapping[str, Any], base: str) -> list[str]:
    """One paper of a list as Markdown list lines: its `id`, `title`, `names` (its authors),
    `published`, `categories` and, for a search result, `snippet`."""
    details = [
        escaped(", ".join(paper["names"]))
        + (f" and {paper['more_authors']:,} more" if paper.get("more_authors") else ""),
        shown(paper["published"]),
        ", ".join(paper["categories"]),
    ]
    url = f"{base}{paper['href']}"
    lines = [f"- {_link(paper['title'], url)} ({paper['id']})"]
    lines.append(f"  {' · '.join(d for d in details if d)}")
    if paper.get("snippet"):
        lines.append(f"  > {escaped(paper['snippet'])}")
    return lines


def listing_markdown(title: str, intro: str, papers: Sequence[Mapping[str, Any]], base: str) -> str:
    """A page that lists papers (search results, an author's papers) as Markdown."""
    lines = [f"# {escaped(title)}", "", intro, ""]
    for paper in papers:
        lines += listed_paper(paper, base)
    return "\n".join(lines).rstrip() + "\n"


def search_markdown(search: Any, listing: Any, papers: int, base: str) -> str:
    """The search page (a `SearchForm` and its `Listing`) as Markdown."""
    if not search.query:
        intro = f"{papers} papers indexed. Search them with `{base}/?q=...`."
        return listing_markdown("Search the papers", intro, [], base)
    shown_from = (search.page - 1) * len(listing.results) + 1 if listing.results else 0
    intro = (
        f"{listing.total} papers match, sorted by {search.sort}; page {search.page}"
        f" (from result {shown_from})."
        if listing.total
        else "No papers match."
    )
    rows = [
        {**vars(hit), "names": hit.author_names, "published": hit.published}
        for hit in listing.results
    ]
    return listing_markdown(f"Search: {search.query}", escaped(intro), rows, base)


def researcher_markdown(
    name: str,
    papers: Sequence[Mapping[str, Any]],
    coauthors: Iterable[Any],
    base: str,
    listed: Shown | None = None,
    path: str = "",
) -> str:
    """A researcher's page (its papers, each with its `authors`, and its co-authors) as
    Markdown; `listed`: which page of their papers `papers` is (all of them if None), `path`
    the profile's, for the next page's address."""
    listed = listed or Shown(1, 1, len(papers))
    intro = escaped(
        f"{listed.counted('paper')} in this index, newest first{listed.which}; "
        "matched by name: older work may be missing."
    )
    rows = [{**paper, "names": paper["authors"]} for paper in papers]
    text = listing_markdown(name, intro, rows, base)
    if listed.page < listed.pages:
        text += f"\nNext page: <{base}{path}.md?page={listed.page + 1}>\n"
    lines = _section(
        "Co-authors",
        (
            f"- {_link(c.name, base + c.path)}: {c.shared} shared "
            f"paper{'' if c.shared == 1 else 's'}"
            for c in coauthors
        ),
    )
    return text + ("\n" + "\n".join(lines).rstrip() + "\n" if lines else "")


def institution_markdown(
    name: str, papers: Sequence[Mapping[str, Any]], base: str, members: Iterable[Any] = ()
) -> str:
    """An institution's page (the papers that name it, each with its `authors` and where
    the name was read, `source`: "pdf" or "record"; the researchers page 1 of its papers
    puts at it) as Markdown."""
    from_pdf = sum(paper["source"] == "pdf" for paper in papers)
    intro = escaped(
        f"{len(papers)} paper{'' if len(papers) == 1 else 's'} in this index name it: "
        f"{from_pdf} on their PDF's first page, {len(papers) - from_pdf} in their record."
    )
    rows = [{"categories": [], **paper, "names": paper["authors"]} for paper in papers]
    text = listing_markdown(name, intro, rows, base)
    lines = _section(
        f"Researchers at {escaped(name)} (by page 1 of its papers)",
        (f"- {_link(m.name, base + m.path)}: {m.papers} of its papers" for m in members),
    )
    return text + ("\n" + "\n".join(lines).rstrip() + "\n" if lines else "")
