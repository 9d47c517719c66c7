"""What a search may be restricted to, read alike by the vector store and the lexical index.

Both indexes store a paper's publication date as an integer (`date_number`),
so a date range is a range of integers in either. An author is resolved to
the ids of their papers through the catalog's author index (`Catalog.person`)
before a search (`Filters.within`): the indexes filter by those paper ids
(`searched_papers`), and refuse a filter whose author is still only a name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass


def date_number(iso_date: str) -> int:
    """`2024-03-05` as 20240305; a month alone (`2024-03`, a paper whose first day is not
    known) as its first day, 20240301; an unknown date ("") as 0."""
    if not iso_date:
        return 0
    number = int(iso_date.replace("-", ""))
    return number * 100 + 1 if len(iso_date) == len("YYYY-MM") else number


class UnresolvedAuthor(ValueError):
    """A search was given an author's name, not the ids of the author's papers."""


@dataclass(frozen=True)
class Filters:
    """Restrictions on what may be retrieved; empty means no restriction."""

    paper_ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    published_from: str = ""  # ISO date, inclusive
    published_to: str = ""  # ISO date, inclusive
    author: str = ""  # an author's name as written: that author's papers only
    # The author's papers (among `paper_ids`, when given) once resolved; None before.
    author_papers: tuple[str, ...] | None = None

    def with_papers(self, paper_ids: Sequence[str]) -> Filters:
        return dataclasses.replace(self, paper_ids=tuple(paper_ids))

    def within(self, author_papers: Sequence[str]) -> Filters:
        """The author resolved to the ids of their papers: those papers only, and of them
        only the ones in `paper_ids`, when some were asked for. May be no paper at all."""
        wanted = list(dict.fromkeys(author_papers))
        if self.paper_ids:
            asked = set(self.paper_ids)
            wanted = [p for p in wanted if p in asked]
        return dataclasses.replace(self, author_papers=tuple(wanted))

    @property
    def searched_papers(self) -> tuple[str, ...]:
        """The papers a search is restricted to; empty for no restriction by paper."""
        return self.paper_ids if self.author_papers is None else self.author_papers

    @property
    def matches_nothing(self) -> bool:
        """An author with no paper here (among those asked for): no search can find any."""
        return self.author_papers == ()

    def check_resolved(self) -> None:
        """Raise UnresolvedAuthor when the author has not been turned into paper ids."""
        if self.author and self.author_papers is None:
            raise UnresolvedAuthor(
                f"the author {self.author!r} must be resolved to paper ids before a search"
            )

    @property
    def published_range(self) -> tuple[int | None, int | None]:
        """The date bounds as `date_number`s, None where the range is open."""
        low = date_number(self.published_from) if self.published_from else None
        high = date_number(self.published_to) if self.published_to else None
        return low, high
