"""Entries matched to the library's papers: by arXiv id, else DOI, else a title only one
paper has (`ingest/index/names/citations.py` keys titles)."""

from __future__ import annotations

from dataclasses import dataclass

from chat.library.imports.entries import Entry
from ingest.index.catalog import Catalog
from ingest.index.names.citations import papers_named, title_key


@dataclass(frozen=True)
class Match:
    entry: Entry
    paper_id: str
    how: str  # "arxiv_id", "doi" or "title"


@dataclass(frozen=True)
class Miss:
    entry: Entry
    reason: str


def _reason(entry: Entry, found: list[str]) -> str:
    if found:
        return "several papers of the library have this title"
    if entry.arxiv_id:
        return f"the library does not hold arXiv:{entry.arxiv_id}"
    if not (entry.doi or title_key(entry.title)):
        return "it has no arXiv id, DOI or title long enough to match"
    return "no paper of the library has its arXiv id, DOI or title"


def match_entries(catalog: Catalog, entries: list[Entry]) -> tuple[list[Match], list[Miss]]:
    matched: list[Match] = []
    missed: list[Miss] = []
    for entry in entries:
        found, how = papers_named(catalog.db, entry.arxiv_id, entry.doi, title_key(entry.title))
        if len(found) == 1:
            matched.append(Match(entry, found[0], how))
        else:
            missed.append(Miss(entry, _reason(entry, found)))
    return matched, missed
