"""The search page's form: the query and its filters as a visitor sent them, read leniently
(a date that is no day, or an unknown sort, is left out rather than refused), and the
addresses of the result pages."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import date
from typing import get_args
from urllib.parse import urlencode

from chat.library.papers import MAX_SEARCH_MATCHES, SearchSort
from chat.rag.retrieval.config import MAX_QUERY_CHARS

SORTS: tuple[SearchSort, ...] = get_args(SearchSort)


def _day(value: str) -> str:
    """`value` if it is a day (`2024-03-01`), else ""."""
    try:
        return date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        return ""


@dataclass(frozen=True)
class SearchForm:
    query: str = ""
    category: str = ""
    published_from: str = ""  # ISO day, inclusive
    published_to: str = ""
    author: str = ""
    sort: SearchSort = "relevance"
    page: int = 1

    @classmethod
    def read(
        cls,
        query: str,
        category: str,
        published_from: str,
        published_to: str,
        author: str,
        sort: str,
        page: int,
    ) -> SearchForm:
        chosen: SearchSort = next((s for s in SORTS if s == sort), "relevance")
        return cls(
            query.strip()[:MAX_QUERY_CHARS],
            category.strip(),
            _day(published_from),
            _day(published_to),
            " ".join(author.split())[:MAX_QUERY_CHARS],
            chosen,
            max(1, page),
        )

    @property
    def filtered(self) -> bool:
        return bool(self.category or self.published_from or self.published_to or self.author)

    def address(self, page: int) -> str:
        """This search's page `page` (from 1), with its filters."""
        params = {
            "q": self.query,
            "category": self.category,
            "from": self.published_from,
            "to": self.published_to,
            "author": self.author,
            "sort": "" if self.sort == "relevance" else self.sort,
            "page": "" if page == 1 else str(page),
        }
        return "/?" + urlencode({k: v for k, v in params.items() if v})

    def pages(self, total: int, per_page: int) -> list[tuple[int, str]]:
        """Each result page's number and address."""
        count = math.ceil(min(total, MAX_SEARCH_MATCHES) / per_page)
        return [(n, replace(self, page=n).address(n)) for n in range(1, count + 1)]
