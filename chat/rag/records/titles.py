"""The catalog's titles held in memory, for the lookups a question makes of them on every ask.

Which titles a question writes, which title is the one written, which titles
put given words before their colon: each was a scan of every title in the
catalog (tens of milliseconds over the full library, several times per
question). `titles_of(catalog)` reads the titles once and answers the same
lookups from dictionaries, as the catalog's SQL answered them (its `lower`,
ASCII only on SQLite; the first row in the table's order where one is
taken). It is read again when the catalog's generation moves, that is after
any write, in any process, but at most every `REREAD_S` seconds: while the
catalog changes faster, the lookups ask its SQL, so a paper just ingested is
found at once. Below it, the lookups of what a title puts before its colon
(`title_head_paper`, `capitalised_head`).
"""

from __future__ import annotations

import re
import string
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ingest.index.catalog import Catalog

# Titles are found in a text by their first characters: no title shorter is looked for.
KEY_CHARS = 12
# Capitalised words in a row, as a title is written ("Beyond Summarization").
_MOST_HEAD_WORDS = 8  # a title's part before its colon is looked for up to this long
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)+")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def sqlite_lower(text: str) -> str:
    """`text` as SQLite's `lower()` writes it: ASCII letters only."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


class Title(NamedTuple):
    order: int  # its place in the table's order
    id: str
    title: str
    published: str | None


@dataclass
class Titles:
    """Every title of one generation of the catalog; `lower` is the catalog's SQL `lower`."""

    titles: list[Title]
    lower: Callable[[str], str]
    _cased: dict[str, list[Title]] = field(default_factory=dict)
    _uncased: dict[str, list[Title]] = field(default_factory=dict)
    _whole: dict[str, str] = field(default_factory=dict)
    _heads: dict[str, list[Title]] | None = None
    _by_id: dict[str, str] | None = None  # made at its first use (one dict built whole)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        cased, uncased = defaultdict(list), defaultdict(list)
        for title in self.titles:
            lowered = self.lower(title.title)
            if title.title:
                self._whole.setdefault(lowered, title.id)
            if len(title.title) >= KEY_CHARS:
                cased[title.title[:KEY_CHARS]].append(title)
                uncased[lowered[:KEY_CHARS]].append(title)
        self._cased, self._uncased = dict(cased), dict(uncased)

    def written_in(self, text: str, *, cased: bool) -> list[Title]:
        """The titles of `KEY_CHARS` characters or more that `text` holds (as it is when
        `cased`, else each title in `lower` against `text` as given), in the table's order."""
        starts = self._cased if cased else self._uncased
        found: dict[int, Title] = {}
        for at in range(len(text) - KEY_CHARS + 1):
            for title in starts.get(text[at : at + KEY_CHARS], ()):
                written = title.title if cased else self.lower(title.title)
                if text.startswith(written, at):
                    found[title.order] = title
        return [found[order] for order in sorted(found)]

    def title_of(self, paper_id: str) -> str | None:
        if self._by_id is None:
            self._by_id = {t.id: t.title for t in self.titles}
        return self._by_id.get(paper_id)

    def paper_titled(self, title: str) -> str | None:
        """The first paper whose title in `lower` is `title` (already lowered)."""
        return self._whole.get(title)

    def with_head(self, head: str, fold: Callable[[str], str]) -> list[Title]:
        """The titles with a colon whose part before it `fold`s to `head` (`fold` is always
        the same function), and whose `lower` begins with `head`'s words, in that order,
        before a colon."""
        if self._heads is None:
            with self._lock:
                if self._heads is None:
                    self._heads = self._by_head(fold)
        found = self._heads.get(head, ())
        if not found:
            return []
        words = ".*?".join(re.escape(word) for word in head.split())
        in_order = re.compile(f"{words}.*:", re.DOTALL)
        return [t for t in found if in_order.match(self.lower(t.title))]

    def _by_head(self, fold: Callable[[str], str]) -> dict[str, list[Title]]:
        heads = defaultdict(list)
        for title in self.titles:
            head, colon, _ = title.title.partition(":")
            if colon:
                heads[fold(head)].append(title)
        return dict(heads)


# While the catalog is being written to, its titles are read again at most this often; in
# between, `titles_of` gives None and the lookups ask the catalog's SQL, as current as ever.
REREAD_S = 30.0

_cache: weakref.WeakKeyDictionary[Catalog, tuple[int, float, Titles]] = weakref.WeakKeyDictionary()
_reading = threading.Lock()


def titles_of(catalog: Catalog) -> Titles | None:
    """The catalog's titles as of its current generation; None when they changed since
    they were last read, less than `REREAD_S` ago (the caller then asks the catalog)."""
    generation = catalog.generation()
    held = _cache.get(catalog)
    if held is not None and held[0] == generation:
        return held[2]
    if held is not None and time.monotonic() - held[1] < REREAD_S:
        return None
    with _reading:
        held = _cache.get(catalog)
        if held is not None and held[0] == generation:
            return held[2]
        rows = catalog.db.execute("SELECT id, title, published FROM papers").fetchall()
        lower = sqlite_lower if catalog.db.dialect == "sqlite" else str.lower
        read = [Title(n, str(r[0]), str(r[1] or ""), r[2]) for n, r in enumerate(rows)]
        titles = Titles(read, lower)
        _cache[catalog] = (generation, time.monotonic(), titles)
        return titles


def folded(text: str) -> str:
    """`text` lowered, its punctuation read as spaces, its spaces single."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def title_head_paper(head: str, catalog: Catalog) -> str | None:
    """The first submitted of the papers whose title puts `head` (folded) before its
    colon: "batch normalization" for "Batch Normalization: Accelerating ..."."""
    titles = titles_of(catalog)
    if titles is not None:
        heads = [(t.published, t.id) for t in titles.with_head(head, folded)]
    else:
        rows = catalog.db.execute(
            "SELECT id, title, published FROM papers WHERE lower(title) LIKE ? ESCAPE '\\'",
            (_words_like(head) + "%:%",),
        ).fetchall()
        heads = [
            (r["published"], r["id"]) for r in rows if folded(r["title"].partition(":")[0]) == head
        ]
    return str(min(heads, key=lambda h: (h[0] or "9", h[1]))[1]) if heads else None


def capitalised_head(question: str, catalog: Catalog) -> tuple[str, str | None]:
    """The part before a title's colon that the question writes capitalised, two words
    or more ("Beyond Summarization" for "Beyond Summarization: Designing AI Support
    ..."), folded, with its first submitted paper; ("", None) when it writes none."""
    for match in _CAPITALISED_RUN.finditer(question):
        words = match[0].split()
        for size in range(min(len(words), _MOST_HEAD_WORDS), 1, -1):  # the longest first
            for start in range(len(words) - size + 1):
                head = folded(" ".join(words[start : start + size]))
                if found := title_head_paper(head, catalog):
                    return head, found
    return "", None


def _words_like(folded: str) -> str:
    """A LIKE pattern for `folded`'s words in order, whatever a title prints between them
    ("paper plain: making" for "paper plain making"), escaped."""
    return "%".join(re.sub(r"([\\%_])", r"\\\1", w) for w in folded.split())
