"""arXiv categories as the site shows them: a category's papers, newest first, a page at a
time, and every category the index holds (for the sitemap)."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Final

from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from ingest.index.tables.arrivals import newest_ids

# An arXiv category (cs.CL, hep-th, math.GT); metadata also lists MSC and ACM classes there.
CATEGORY_RE: Final = re.compile(r"^[a-z-]+(?:\.[A-Za-z-]+)?$")
CATEGORY_PAGE_PAPERS: Final = 25
# The deepest page a category lists: older papers are found by search.
MAX_CATEGORY_PAGES: Final = 400


class CategoryNotFound(PaperchatError, LookupError):
    """No paper in the index is in that category, or it is no arXiv category."""


@dataclass(frozen=True)
class CategoryPage:
    category: str
    papers: tuple[Paper, ...]  # newest first (first version, else last update)
    total: int  # papers in the category, on every page
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return min(math.ceil(self.total / self.per_page), MAX_CATEGORY_PAGES)

    @property
    def first(self) -> int:
        """The number of the first paper on this page, from 1."""
        return (self.page - 1) * self.per_page + 1


@cache
def arxiv_categories() -> frozenset[str]:
    """Every category id of arXiv's taxonomy, retired archives included
    (`chat/library/data/arxiv_categories.txt`)."""
    text = (files("chat.library") / "data" / "arxiv_categories.txt").read_text(encoding="utf-8")
    lines = (line.strip() for line in text.splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def category_path(category: str) -> str:
    return f"/categories/{category}"


def category_papers(
    catalog: Catalog, category: str, page: int = 1, per_page: int = CATEGORY_PAGE_PAPERS
) -> CategoryPage:
    """Page `page` of the category's papers, newest first; CategoryNotFound for a category
    with no paper in the index, or a page past its last."""
    total = indexed_category(catalog, category)
    last = min(math.ceil(total / per_page), MAX_CATEGORY_PAGES)
    if not 1 <= page <= last:
        raise CategoryNotFound(f"the category {category!r} has {last} pages, not {page}")
    ids = newest_ids(catalog.db, page * per_page, category=category)[(page - 1) * per_page :]
    papers = tuple(p for p in map(catalog.get_paper, ids) if p is not None)
    return CategoryPage(category, papers, total, page, per_page)


def indexed_category(catalog: Catalog, category: str) -> int:
    """How many papers in the index are in `category`; CategoryNotFound when it is no arXiv
    category or no paper in the index is in it (its page, its feed and following it are 404s)."""
    if not CATEGORY_RE.match(category):
        raise CategoryNotFound(f"{category!r} is not an arXiv category")
    total = category_size(catalog, category)
    if total == 0:
        raise CategoryNotFound(f"no paper in the category {category!r} in this index")
    return total


def category_size(catalog: Catalog, category: str) -> int:
    """How many papers in the index are in `category`."""
    db = catalog.db
    # Categories are stored separated by single spaces.
    holds = db.contains("' ' || categories || ' '")
    query = f"SELECT COUNT(*) FROM papers WHERE {holds}"
    return int(db.execute(query, (f" {category} ",)).fetchone()[0])


def every_category(catalog: Catalog) -> list[tuple[str, int, str]]:
    """(category, papers, the day its newest paper last changed) of every arXiv category in
    the index, by name."""
    papers: Counter[str] = Counter()
    changed: dict[str, str] = {}
    rows = catalog.db.execute("SELECT categories, published, updated FROM papers")
    for categories, published, updated in rows:
        day = str(updated or published or "")
        for category in str(categories).split():
            if CATEGORY_RE.match(category):
                papers[category] += 1
                changed[category] = max(changed.get(category, ""), day)
    return [(c, papers[c], changed[c]) for c in sorted(papers)]
