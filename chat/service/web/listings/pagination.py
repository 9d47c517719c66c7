"""The links between the pages of a long listing: the first, the last and those near the
page shown, with a gap marked between them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Page links shown either side of the current page; the first and last are always shown.
PAGE_WINDOW: Final = 3


@dataclass(frozen=True)
class Shown:
    """Which page of a listing is shown: `page` of `pages`, of `total` items in all."""

    page: int
    pages: int
    total: int

    def counted(self, noun: str) -> str:
        """ "1 paper", "1,200 papers": every page's items."""
        return f"{self.total:,} {noun}{'' if self.total == 1 else 's'}"

    @property
    def which(self) -> str:
        """ "; page 2 of 12", or nothing when there is one page."""
        return "" if self.pages == 1 else f"; page {self.page} of {self.pages}"


def page_links(page: int, pages: int, path: str) -> list[tuple[int | None, str]]:
    """(number, address) of the pages of `path` to link from page `page` of `pages`; a gap
    between them as (None, ""). Page 1 is `path` itself, the others `path?page=N`."""
    shown = {1, pages, *range(page - PAGE_WINDOW, page + PAGE_WINDOW + 1)}
    links: list[tuple[int | None, str]] = []
    for number in sorted(n for n in shown if 1 <= n <= pages):
        if links and links[-1][0] is not None and number - (links[-1][0] or 0) > 1:
            links.append((None, ""))
        links.append((number, path if number == 1 else f"{path}?page={number}"))
    return links
