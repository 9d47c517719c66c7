"""What a search may be restricted to, read alike by the vector store and the lexical index.

Both indexes store a paper's publication date as an integer (`date_number`),
so a date range is a range of integers in either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def date_number(iso_date: str) -> int:
    """`2024-03-01` as 20240301; an unknown date ("") as 0."""
    return int(iso_date.replace("-", "")) if iso_date else 0


@dataclass(frozen=True)
class Filters:
    """Restrictions on what may be retrieved; empty means no restriction."""

    paper_ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    published_from: str = ""  # ISO date, inclusive
    published_to: str = ""  # ISO date, inclusive

    def with_papers(self, paper_ids: Sequence[str]) -> Filters:
        return Filters(tuple(paper_ids), self.categories, self.published_from, self.published_to)

    @property
    def published_range(self) -> tuple[int | None, int | None]:
        """The date bounds as `date_number`s, None where the range is open."""
        low = date_number(self.published_from) if self.published_from else None
        high = date_number(self.published_to) if self.published_to else None
        return low, high
