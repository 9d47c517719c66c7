"""Named methods and acronyms kept in the catalog's `names` table: mined from each
paper's text (`names/mining.py`) by ingest, read at question time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.index.catalog import Catalog
from ingest.index.names.mining import mine_paper

# Bumped when mining changes: every paper's names are mined again on the next open.
NAMES_VERSION = "10"
_META_KEY = "names_version"
# The defining rows of a name read at question time: its most explicit few hundred (a
# common acronym such as "LLM" is defined by thousands of papers, and which of them is
# no matter to a question about it).
DEFINING_ROWS = 300
# The names whose rows are kept between questions, at most (the least recently asked leave).
KEPT_NAMES = 4_096
_MOST_EXPLICIT = (
    "SELECT paper_id, name, long_form, defined, source, count, folded FROM ("
    " SELECT *, ROW_NUMBER() OVER (PARTITION BY name ORDER BY defined DESC,"
    " CASE source WHEN 'title' THEN 0 WHEN 'abstract' THEN 1 ELSE 2 END, count DESC,"
    " paper_id) AS place FROM names WHERE {where}) AS ranked"
    f" WHERE place <= {DEFINING_ROWS}"
)


# How many papers print each name without defining it: read from the index names_by_use
# alone (catalog migration 10), a fraction of a millisecond where reading the rows of a name
# a thousand papers print took 11 ms of every question naming it.
USERS_QUERY = (
    "SELECT name, COUNT(DISTINCT paper_id) FROM names"
    " WHERE name IN ({marks}) AND defined = 0 GROUP BY name"
)


class NameCatalog:
    """The catalog's `names` table (`ingest/index/tables/schema.py`): written by ingest, read at
    question time."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.db = catalog.db
        # Rows read by `rows_for`, by (column, value, defined only), while the catalog's
        # generation stays `_kept_at`: the same names come back question after question.
        self._kept: OrderedDict[tuple[str, str, bool], tuple[NameRow, ...]] = OrderedDict()
        self._kept_at: int | None = None
        self._lock = threading.Lock()

    def replace_papers(self, paper_ids: Iterable[str]) -> None:
        """Within the caller's transaction: mine each paper's names again from the catalog."""
        for paper_id in dict.fromkeys(paper_ids):
            self.db.execute("DELETE FROM names WHERE paper_id = ?", (paper_id,))
            paper = self.catalog.get_paper(paper_id)
            if paper is None:
                continue
            texts = [
                (kind, chunk.text)
                for kind in ("abstract", "fulltext")
                for chunk in self.catalog.unit_chunks(paper_id, kind)
            ]
            rows = mine_paper(paper.title, texts)
            self.db.executemany(
                "INSERT INTO names (paper_id, name, folded, long_form, long_key,"
                " defined, source, count) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                [(paper_id, *row) for row in rows],
            )

    def is_current(self) -> bool:
        return self.catalog.get_meta(_META_KEY) == NAMES_VERSION

    def backfill(self, batch: int = 500) -> int:
        """Mine every paper's names when the table is missing or older than this version;
        returns the papers mined (0 when current). Reads only the catalog: no re-embedding."""
        if self.is_current():
            return 0
        ids = [str(r[0]) for r in self.db.execute("SELECT id FROM papers ORDER BY id")]
        with self.catalog.transaction():
            self.db.execute("DELETE FROM names")
        for start in range(0, len(ids), batch):
            with self.catalog.transaction():
                self.replace_papers(ids[start : start + batch])
        self.catalog.set_meta(_META_KEY, NAMES_VERSION)
        return len(ids)

    def rows_for(
        self, names: Sequence[str], folded: Sequence[str] = (), *, defined_only: bool = False
    ) -> list[NameRow]:
        """Every row whose name is one of `names` exactly, or whose folded name is in
        `folded`; with `defined_only`, only the rows of papers that define the name (a
        common name such as "LLM" is used by thousands: `users_of` counts those). Each
        value's rows are kept until the catalog is written (at most `KEPT_NAMES` values)."""
        generation = self.catalog.generation()
        found: list[NameRow] = []
        for column, values in (("name", names), ("folded", folded)):
            keys = [(column, v, defined_only) for v in dict.fromkeys(values)]
            with self._lock:
                if self._kept_at != generation:
                    self._kept.clear()
                    self._kept_at = generation
                kept = {key: self._kept.get(key) for key in keys}
            missing = [key[1] for key, rows in kept.items() if rows is None]
            if missing:
                read = self._read_rows(column, missing, defined_only)
                with self._lock:
                    for value in missing:
                        kept[(column, value, defined_only)] = read.get(value, ())
                        if self._kept_at == generation:
                            self._keep((column, value, defined_only), read.get(value, ()))
            for key in keys:
                found += kept[key] or ()
        return list(dict.fromkeys(found))

    def _keep(self, key: tuple[str, str, bool], rows: tuple[NameRow, ...]) -> None:
        self._kept[key] = rows
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT_NAMES:
            self._kept.popitem(last=False)

    def _read_rows(
        self, column: str, values: Sequence[str], defined_only: bool
    ) -> dict[str, tuple[NameRow, ...]]:
        """The rows of each of `values` of `column` ("name" or "folded"), in the order
        the database gives them."""
        marks = ",".join("?" * len(values))
        query = (
            _MOST_EXPLICIT.format(where=f"{column} IN ({marks}) AND defined > 0")
            if defined_only
            else "SELECT paper_id, name, long_form, defined, source, count, folded FROM names"
            f" WHERE {column} IN ({marks})"
        )
        by_value: dict[str, list[NameRow]] = {}
        for *fields, folded in self.db.execute(query, values):
            row = NameRow(*fields)
            by_value.setdefault(row.name if column == "name" else str(folded), []).append(row)
        return {value: tuple(rows) for value, rows in by_value.items()}

    def users_of(self, names: Sequence[str]) -> dict[str, int]:
        """For each of `names`, how many papers print it without defining it."""
        names = list(dict.fromkeys(names))
        if not names:
            return {}
        query = USERS_QUERY.format(marks=",".join("?" * len(names)))
        return {str(name): int(count) for name, count in self.db.execute(query, names)}

    def definers_of(self, name: str) -> tuple[int, str | None]:
        """How many papers define `name` (all of them, where `rows_for` reads the most
        explicit `DEFINING_ROWS`), and the first submitted of those with a date."""
        count = self.db.execute(
            "SELECT COUNT(DISTINCT paper_id) FROM names WHERE name = ? AND defined > 0", (name,)
        ).fetchone()
        first = self.db.execute(
            "SELECT n.paper_id FROM names n JOIN papers p ON p.id = n.paper_id"
            " WHERE n.name = ? AND n.defined > 0 AND p.published != ''"
            " ORDER BY p.published, n.paper_id LIMIT 1",
            (name,),
        ).fetchone()
        return int(count[0]) if count else 0, str(first[0]) if first else None

    def top_printers(self, name: str, limit: int = 2) -> list[tuple[str, int]]:
        """The papers that print `name` (as written) most often, with how often, most first:
        a name no paper defines may still be one paper's own, printed throughout it."""
        query = "SELECT paper_id, count FROM names WHERE name = ? ORDER BY count DESC LIMIT ?"
        return [(str(paper), int(count)) for paper, count in self.db.execute(query, (name, limit))]

    def printed_names(self, folded: Sequence[str]) -> dict[str, list[str]]:
        """For each of `folded` (names in lower case), the names the papers print that
        fold to it, in any case, defined or only used: "flashattention" -> FlashAttention."""
        folded = list(dict.fromkeys(folded))
        if not folded:
            return {}
        marks = ",".join("?" * len(folded))
        query = f"SELECT DISTINCT folded, name FROM names WHERE folded IN ({marks})"
        found: dict[str, list[str]] = {}
        for key, name in self.db.execute(query, folded):
            found.setdefault(str(key), []).append(str(name))
        return found

    def rows_for_long_forms(self, keys: Sequence[str]) -> list[NameRow]:
        """Rows whose long form, folded, is one of `keys`."""
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        query = (
            "SELECT paper_id, name, long_form, defined, source, count FROM names"
            # `long_key != ''` lets SQLite use the partial index names_long_key.
            f" WHERE long_key IN ({marks}) AND long_key != ''"
        )
        return [NameRow(*r) for r in self.db.execute(query, keys)]

    def paper_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])

    def of_paper(self, paper_id: str) -> list[NameRow]:
        rows = self.db.execute(
            "SELECT paper_id, name, long_form, defined, source, count FROM names"
            " WHERE paper_id = ? ORDER BY defined DESC, name",
            (paper_id,),
        )
        return [NameRow(*r) for r in rows]


@dataclass(frozen=True)
class NameRow:
    paper_id: str
    name: str
    long_form: str
    defined: int
    source: str
    count: int
