"""A saved question's news: of the papers that arrive on its topic, the one that answers it
(its passage scores about as well as the best the question now retrieves), not those that
rank among its sources only for sharing its topic."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.filters import Filters
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport
from ingest.sources.units import metadata_items
from tests.support.data import OAI_SAMPLE

pytestmark = pytest.mark.timeout(600)

DIPOLES = "How do errors of the discrete dipole approximation depend on the dipole size?"
ANSWERING = "0704.0033"  # Convergence of the discrete dipole approximation. I. Theoretical analysis
# On the same method, retrieved for the question well below the one answering it: an
# extrapolation technique (II) and an overview.
ON_TOPIC = ("0704.0035", "0704.0038")
FIRST = 20  # the records the index holds when the question is saved


def _records() -> dict[str, dict[str, Any]]:
    with OAI_SAMPLE.open(encoding="utf-8") as lines:
        found = [json.loads(line) for line in lines if line.strip()]
    return {r["id"]: r for r in found}


def _ingest(index: Wiring, path: Path, chosen: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    pipeline.run(metadata_items(path, embedder.count_tokens), IngestReport())


@pytest.fixture
def index(tmp_path: Path, models_cache: Path) -> Iterator[Wiring]:
    """An index of the sample's first records: none of them about dipoles."""
    made = Wiring(Settings(data_dir=tmp_path / "data", models_cache=models_cache))
    _ingest(made, tmp_path / "first.jsonl", list(_records().values())[:FIRST])
    yield made
    made.close()


def test_only_the_new_paper_that_answers_the_question_is_news(
    index: Wiring, tmp_path: Path
) -> None:
    baseline = index.watcher.baseline(DIPOLES, Filters())
    known = _records()
    _ingest(index, tmp_path / "new.jsonl", [known[p] for p in (ANSWERING, *ON_TOPIC)])

    news = index.watcher.news(DIPOLES, Filters(), baseline, {ANSWERING, *ON_TOPIC})
    retrieved = {s.id for s in index.retriever.retrieve(DIPOLES).sources}

    assert [n.paper_id for n in news] == [ANSWERING]
    assert "dipole" in news[0].sentence
    # The others were among the answer's sources, new to it, and still no news.
    assert set(ON_TOPIC) <= retrieved


def test_a_paper_on_the_topic_is_news_while_it_is_the_best_answer(
    index: Wiring, tmp_path: Path
) -> None:
    baseline = index.watcher.baseline(DIPOLES, Filters())
    known = _records()
    _ingest(index, tmp_path / "new.jsonl", [known[p] for p in ON_TOPIC])

    news = index.watcher.news(DIPOLES, Filters(), baseline, set(ON_TOPIC))

    # The overview now answers best; the extrapolation technique, well below it, is no news.
    assert [n.paper_id for n in news] == ["0704.0038"]
