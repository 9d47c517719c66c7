"""BM25 search over the catalog's full-text index, with the same analysis as ingest."""

from __future__ import annotations

from dataclasses import dataclass

from ingest.analysis import terms
from ingest.catalog import Catalog


@dataclass(frozen=True)
class LexicalHit:
    chunk_id: str
    paper_id: str
    kind: str
    score: float  # BM25, higher is better


def match_expression(query: str) -> str:
    """An FTS5 query that matches any of the query's terms, each quoted."""
    unique = dict.fromkeys(terms(query))
    return " OR ".join(f'"{t}"' for t in unique)


def search(catalog: Catalog, query: str, limit: int = 50) -> list[LexicalHit]:
    expression = match_expression(query)
    if not expression:
        return []
    rows = catalog.db.execute(
        "SELECT c.id, c.paper_id, c.kind, -bm25(chunks_fts) AS score"
        " FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid"
        " WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?",
        (expression, limit),
    )
    return [LexicalHit(r["id"], r["paper_id"], r["kind"], float(r["score"])) for r in rows]
