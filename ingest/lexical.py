"""BM25 search over the catalog's full-text index, with the same analysis as ingest."""

from __future__ import annotations

from collections.abc import Sequence

from ingest.analysis import terms
from ingest.catalog import Catalog

Hit = tuple[str, str, float]  # (chunk id, paper id, BM25 score: higher is better)


def match_expression(query: str) -> str:
    """An FTS5 query that matches any of the query's terms, each quoted."""
    unique = dict.fromkeys(terms(query))
    return " OR ".join(f'"{t}"' for t in unique)


def search(
    catalog: Catalog,
    query: str,
    limit: int = 50,
    *,
    paper_ids: Sequence[str] = (),
    categories: Sequence[str] = (),
    published_from: str = "",
    published_to: str = "",
) -> list[Hit]:
    """The best chunks for `query`, optionally within some papers, categories or dates."""
    expression = match_expression(query)
    if not expression:
        return []
    sql = [
        "SELECT c.id, c.paper_id, -bm25(chunks_fts) AS score FROM chunks_fts",
        "JOIN chunks c ON c.rowid = chunks_fts.rowid",
    ]
    where = ["chunks_fts MATCH ?"]
    params: list[object] = [expression]
    if categories or published_from or published_to:
        sql.append("JOIN papers p ON p.id = c.paper_id")
    if paper_ids:
        where.append(f"c.paper_id IN ({','.join('?' * len(paper_ids))})")
        params.extend(paper_ids)
    if categories:
        where.append(
            "(" + " OR ".join("(' ' || p.categories || ' ') LIKE ?" for _ in categories) + ")"
        )
        params.extend(f"% {c} %" for c in categories)
    if published_from:
        where.append("p.published >= ?")
        params.append(published_from)
    if published_to:
        where.append("p.published <= ?")
        params.append(published_to)
    sql.append("WHERE " + " AND ".join(where) + " ORDER BY bm25(chunks_fts) LIMIT ?")
    params.append(limit)
    rows = catalog.db.execute(" ".join(sql), params)
    return [(str(r[0]), str(r[1]), float(r[2])) for r in rows]
