"""`paperchat embedder train` on a small library: pairs, determinism, the model folder and its
card, the trained model used by name, and `paperchat index reembed`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ingest.embedders.reembedding
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.embedders.base import EmbedderError, model_dir
from ingest.embedders.held_out import read_questions
from ingest.embedders.pairs import (
    GENERIC_HEADINGS,
    _caption_pairs,
    _meaningful_heading,
    _section_pairs,
    mine_pairs,
)
from ingest.embedders.reembedding import reembed
from ingest.embedders.registry import build_embedder
from ingest.embedders.training import (
    TrainingConfig,
    _Horizon,
    fine_tune,
    load_model,
    train_embedder,
)
from ingest.index.filters import Filters
from ingest.index.vectors.store import ChunkStore, EmbedderMismatch
from tests.support.worlds.indexes import pdf_index

pytestmark = pytest.mark.timeout(900)

TINY = TrainingConfig(batch_size=4, max_steps=2, max_tokens=32, max_seconds=0)


@pytest.fixture
def library(tmp_path: Path, models_cache: Path) -> Wiring:
    """40 abstracts of the shared metadata file, ingested as the command does."""
    return pdf_index(tmp_path, [], 40, models_cache)


def _papers(index: Wiring) -> list[str]:
    return sorted(str(r[0]) for r in index.catalog.db.execute("SELECT id FROM papers"))


def test_each_paper_gives_its_title_and_abstract_and_held_out_papers_give_nothing(
    library: Wiring,
) -> None:
    papers = _papers(library)
    held = set(papers[:5])

    pairs = mine_pairs(library.catalog, held, 50_000, 13)

    titles = [p for p in pairs if p.kind == "title"]
    assert {p.paper_id for p in titles} == set(papers) - held
    assert not {p.paper_id for p in pairs} & held
    paper = library.catalog.get_paper(titles[0].paper_id)
    assert paper is not None
    assert (titles[0].anchor, titles[0].positive) == (paper.title, paper.abstract)


def test_headings_every_paper_has_make_no_pair() -> None:
    chunks = [
        ("fulltext", "1 Introduction", "We study tomography."),
        ("fulltext", "3.2 Sparse-view cone-beam reconstruction", "We reconstruct CBCT volumes."),
        ("fulltext", "3.2 Sparse-view cone-beam reconstruction", "A second passage."),
        ("fulltext", "Related Work", "Others did."),
    ]

    pairs = _section_pairs("p", chunks)

    assert [(p.anchor, p.positive) for p in pairs] == [
        ("Sparse-view cone-beam reconstruction", "We reconstruct CBCT volumes.")
    ]
    assert _meaningful_heading("Experimental Setup") == ""
    assert {"introduction", "related", "work"} <= GENERIC_HEADINGS


def test_a_caption_pairs_with_the_passage_that_cites_it() -> None:
    chunks = [
        ("fulltext", "Results", "As Fig. 3 shows, the error halves with memory."),
        ("caption", "", "Figure 3: Tracking error over 1000 frames."),
        ("caption", "", "Figure 4: Never cited."),
    ]

    pairs = _caption_pairs("p", chunks)

    assert [(p.anchor, p.positive) for p in pairs] == [
        ("Figure 3: Tracking error over 1000 frames.", chunks[0][2])
    ]


def _weights(model: object) -> np.ndarray:
    import torch

    assert isinstance(model, torch.nn.Module)
    return np.concatenate([p.detach().numpy().ravel()[:2000] for p in model.parameters()])


def test_training_is_deterministic_for_a_seed_and_changes_the_model(library: Wiring) -> None:
    pairs = [(p.anchor, p.positive) for p in mine_pairs(library.catalog, set(), 50_000, 13)]
    base = _weights(load_model(model_dir(), 32))

    runs = []
    for seed in (13, 13, 14):
        model = load_model(model_dir(), 32)
        run = fine_tune(model, pairs, TrainingConfig(**{**TINY.__dict__, "seed": seed}))
        runs.append((_weights(model), run))

    (first, run), (again, _), (other, _) = runs
    assert (run.steps, run.stopped_by, run.pairs_seen) == (2, "steps", 8)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert not np.array_equal(first, base)


def test_too_few_pairs_for_a_batch_is_a_clear_error(library: Wiring) -> None:
    model = load_model(model_dir(), 32)

    with pytest.raises(EmbedderError, match="too small to train on"):
        fine_tune(model, [("a", "b")], TINY)


def test_hard_negatives_are_found_only_for_the_pairs_training_reaches(library: Wiring) -> None:
    pairs = [(p.anchor, p.positive) for p in mine_pairs(library.catalog, set(), 50_000, 13)]
    asked: list[int] = []

    def negative(index: int) -> str | None:
        asked.append(index)
        return None if index % 2 else "an unrelated passage about something else"

    run = fine_tune(load_model(model_dir(), 32), pairs, TINY, negative=negative)

    assert len(pairs) > 20
    assert len(asked) == len(set(asked)) == 8  # 2 steps of 4, not every pair
    assert run.with_hard_negative == sum(1 for i in asked if not i % 2)


def test_a_time_budget_fits_the_learning_rate_to_the_steps_it_allows() -> None:
    horizon = _Horizon(1000, 0.1)
    assert horizon.rate(50) == pytest.approx(0.51)  # warming up over 100 steps

    horizon.fit(40)  # the first steps' pace lets 40 run in the budget

    assert horizon.steps == 40
    assert horizon.rate(1) == 0.5  # warming up over 4 steps now
    assert horizon.rate(30) == pytest.approx(0.25)
    assert horizon.rate(40) == 0.0
    horizon.fit(60)  # the pace got quicker
    assert horizon.steps == 60
    assert horizon.rate(30) == pytest.approx(0.5)
    horizon.fit(5000)  # never more than the batches
    assert horizon.steps == 1000


def test_bad_question_files_are_refused_by_line(tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_text('{"question": "q", "gold_id": "2401.00001"}\n{"gold_id": 1}\n')

    with pytest.raises(EmbedderError, match=r"questions\.jsonl:2"):
        read_questions([path])


def test_a_folder_without_a_card_is_no_trained_embedder(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="holds no trained embedder"):
        build_embedder("onnx", cache_dir=tmp_path, model=tmp_path)


def test_train_writes_a_model_the_index_is_embedded_again_with(
    library: Wiring, tmp_path: Path, models_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    papers = _papers(library)
    questions = []
    for paper_id in papers[:6]:
        paper = library.catalog.get_paper(paper_id)
        assert paper is not None
        questions.append((paper.title, paper_id))

    trained = train_embedder(
        library.catalog,
        library.lexical,
        tmp_path / "models",
        questions,
        TINY,
        models_cache=models_cache,
        pool=10,
    )

    card = json.loads((trained.directory / "card.json").read_text())
    assert card["name"].startswith("paperchat/minilm-library-")
    assert card["data"]["held_out_papers"] == 6
    assert card["data"]["pairs"]["title"] == len(papers) - 6
    assert card["training"]["steps"] == 2
    assert 0 < card["training"]["with_hard_negative"] <= 8
    assert card["evaluation"]["questions"] == 6
    assert 0 <= card["evaluation"]["dense_recall_at_5_after"] <= 1
    assert card["onnx_int8"]["bytes"] > 1_000_000
    assert "## Figures" in (trained.directory / "README.md").read_text()

    settings = Settings(
        data_dir=library.settings.data_dir,
        models_cache=models_cache,
        embedder_model=trained.directory,
    )
    adapted = Wiring(settings)
    assert adapted.embedder.name == card["name"]
    with pytest.raises(EmbedderMismatch):
        _ = adapted.store

    # Interrupted after its first page, the run resumes with the chunks it had not written.
    monkeypatch.setattr(ingest.embedders.reembedding, "PAGE", 16)
    total = library.unchecked_store.count()

    def stop(done: int, _: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reembed(adapted._chroma, adapted.embedder, stop)
    done = reembed(adapted._chroma, adapted.embedder)

    assert (done.embedded, done.chunks) == (total - 16, total)
    store = ChunkStore(adapted._chroma, card["name"])
    assert store.count() == total
    question = library.catalog.get_paper(papers[10])
    assert question is not None
    vector = adapted.embedder.embed([question.title])[0]
    nearest = store.search(vector, 3, Filters())
    assert nearest[0][0].startswith(papers[10])
    with pytest.raises(EmbedderMismatch):
        ChunkStore(adapted._chroma, library.embedder.name)
    assert reembed(adapted._chroma, adapted.embedder).unchanged
