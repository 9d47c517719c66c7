"""Held-out questions a trained embedder is judged on, and the recall it reaches on them.

The questions' gold papers are kept out of every training pair (`held_out`); a
model's figure is the dense recall of the gold paper among a pool of the
library's papers (`dense_recall`), before and after training.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ingest.embedders.base import EmbedderError, normalise

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from ingest.index.catalog import Catalog


@dataclass(frozen=True)
class HeldOut:
    """Questions a model is judged on: their papers are in no pair."""

    questions: tuple[tuple[str, str], ...]  # (question, gold paper id)
    pool: tuple[str, ...]  # the papers searched: the gold ones and others of the library

    @property
    def papers(self) -> set[str]:
        return {gold for _, gold in self.questions}


def read_questions(paths: Iterable[Path]) -> list[tuple[str, str]]:
    """(question, gold paper id) of JSON-lines question files (`question`, `gold_id`);
    unanswerable questions (no gold paper) are left out."""
    found = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise EmbedderError(f"cannot read questions {str(path)!r}: {e}") from e
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                question, gold = row["question"], row.get("gold_id")
            except (ValueError, KeyError, TypeError) as e:
                raise EmbedderError(f"{path}:{number}: not a question with gold_id: {e}") from e
            if gold:
                found.append((str(question), str(gold)))
    return found


def held_out(
    catalog: Catalog, questions: Sequence[tuple[str, str]], others: int, seed: int
) -> HeldOut:
    """The questions whose gold paper the library holds, and a pool of their papers and
    `others` more, chosen by `seed`."""
    kept = []
    for question, gold in questions:
        resolved = catalog.resolve_id(gold)
        if resolved is not None:
            kept.append((question, resolved))
    golds = {gold for _, gold in kept}
    rest = sorted(str(r[0]) for r in catalog.db.execute("SELECT id FROM papers"))
    rest = [p for p in rest if p not in golds]
    chosen = random.Random(seed).sample(rest, min(others, len(rest)))
    return HeldOut(tuple(kept), tuple(sorted(golds) + chosen))


def dense_recall(
    model: SentenceTransformer, catalog: Catalog, held: HeldOut, at: int = 5
) -> float | None:
    """Recall@`at` of the gold paper among the pool's papers, each scored by its best
    abstract chunk's cosine to the question; None without questions."""
    if not held.questions:
        return None
    texts, owners = [], []
    for paper in held.pool:
        for chunk in catalog.unit_chunks(paper, "abstract"):
            texts.append(chunk.text)
            owners.append(paper)
    documents = _encode(model, texts)
    queries = _encode(model, [q for q, _ in held.questions])
    papers = sorted(set(owners))
    column = {p: i for i, p in enumerate(papers)}
    hits = 0
    similarity = queries @ documents.T
    for row, (_, gold) in enumerate(held.questions):
        best = np.full(len(papers), -2.0, dtype=np.float32)
        for j, owner in enumerate(owners):
            best[column[owner]] = max(best[column[owner]], similarity[row, j])
        ranked = np.argsort(-best, kind="stable")[:at]
        hits += any(papers[i] == gold for i in ranked)
    return hits / len(held.questions)


def _encode(model: SentenceTransformer, texts: Sequence[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    vectors = model.encode(
        list(texts), batch_size=32, convert_to_numpy=True, show_progress_bar=False
    )
    return normalise(vectors)
