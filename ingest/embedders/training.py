"""Fine-tune the packaged MiniLM on pairs mined from the library (`paperchat embedder train`).

The pairs and their hard negatives come from `ingest.embedders.pairs`. The
model learns with in-batch negatives and those (sentence-transformers'
MultipleNegativesRankingLoss), on the CPU, for a bounded time or number of
steps, deterministically for a seed (`fine_tune`). Papers whose questions
evaluate a model are never in a pair (`ingest.embedders.held_out`).

The result is a versioned folder (`train_embedder`): the model as
sentence-transformers saves it (what the ONNX export reads), its int8 ONNX
graph built as the packaged model's is (`ingest.embedders.onnx_embedder`),
`card.json` (its name, version, data, steps and figures before and after) and
`README.md`, the model card in words. `PAPERCHAT_EMBEDDER_MODEL` names the
folder to use it. The name goes into the Chroma collection's metadata, so an
index embedded by one model is never searched with another
(`ingest.index.vectors.store.EmbedderMismatch`).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.embedders.base import (
    MODEL_MAX_TOKENS,
    MODEL_NAME,
    EmbedderError,
    model_dir,
    stay_offline,
)
from ingest.embedders.held_out import dense_recall, held_out
from ingest.embedders.pairs import PAIR_KINDS, hard_negative, mine_pairs

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from ingest.index.catalog import Catalog
    from ingest.index.lexical.bm25 import LexicalIndex


CARD = "card.json"
Progress = Callable[[str], None]


# Papers besides the held-out questions' own that a model's recall is judged among.
DEFAULT_POOL = 1000


@dataclass(frozen=True)
class TrainingConfig:
    """How long and how the model learns."""

    seed: int = 13
    batch_size: int = 32
    learning_rate: float = 3e-5
    max_seconds: float = 600.0  # stop after the step that passes this; 0: no time limit
    max_steps: int = 0  # 0: as many as the pairs and the time give
    epochs: int = 1
    max_tokens: int = 128  # word pieces read of each text while training
    warmup_share: float = 0.1
    threads: int | None = None  # torch threads; None: torch's default
    pairs_per_kind: int = 50_000  # at most this many pairs of one kind

    def __post_init__(self) -> None:
        if self.batch_size < 2:
            raise ValueError("batch_size must be at least 2: the other pairs are the negatives")
        if self.learning_rate <= 0 or self.max_seconds < 0 or self.max_steps < 0:
            raise ValueError("learning_rate must be above 0, max_seconds and max_steps at least 0")
        if self.epochs < 1 or self.max_tokens < 8 or not 0 <= self.warmup_share < 1:
            raise ValueError("epochs at least 1, max_tokens at least 8, warmup_share in [0, 1)")


@dataclass
class TrainingRun:
    """What `fine_tune` did."""

    steps: int = 0
    pairs_seen: int = 0
    seconds: float = 0.0
    stopped_by: str = "pairs"  # "pairs", "steps" or "time"
    first_loss: float | None = None
    last_loss: float | None = None
    # pairs a step found a BM25 hard negative for (a batch uses them when all its pairs have one)
    with_hard_negative: int = 0


def load_model(directory: Path, max_tokens: int) -> SentenceTransformer:
    stay_offline()
    from sentence_transformers import SentenceTransformer

    from ingest.embedders.onnx_export import quiet_progress_bars

    try:
        with quiet_progress_bars():
            model = SentenceTransformer(str(directory), device="cpu", local_files_only=True)
    except (OSError, ValueError) as e:
        raise EmbedderError(f"cannot load model from {str(directory)!r}: {e}") from e
    model.max_seq_length = max_tokens
    return model


def fine_tune(
    model: SentenceTransformer,
    pairs: Sequence[tuple[str, str]],
    config: TrainingConfig,
    progress: Progress | None = None,
    negative: Callable[[int], str | None] | None = None,
) -> TrainingRun:
    """Train `model` in place on (anchor, positive) pairs with in-batch negatives and, for
    the pairs a step reaches, `negative(index)`'s hard negative, in an order and with
    dropout fixed by `config.seed`.

    The learning rate warms up over `warmup_share` of the steps the run will take and then
    falls linearly to 0 at its last: all the batches, `max_steps`, or, with only a time
    budget, as many as fit in it at the pace so far (judged again after every step from
    the third: the first steps are the slowest)."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    order = random.Random(config.seed)
    batches: list[list[int]] = []
    for _ in range(config.epochs):
        shuffled = list(range(len(pairs)))
        order.shuffle(shuffled)
        size = config.batch_size
        batches += [shuffled[i : i + size] for i in range(0, len(shuffled) - size + 1, size)]
    if config.max_steps:
        batches = batches[: config.max_steps]
    if not batches:
        raise EmbedderError(
            f"{len(pairs)} pairs make no batch of {config.batch_size}: the library is too "
            "small to train on (or lower --batch-size)"
        )
    loss = MultipleNegativesRankingLoss(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    horizon = _Horizon(len(batches), config.warmup_share)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, horizon.rate)
    paced = bool(config.max_seconds) and not config.max_steps
    model.train()
    run = TrainingRun()
    started = time.perf_counter()
    for number, batch in enumerate(batches, start=1):
        anchors = [pairs[i][0] for i in batch]
        positives = [pairs[i][1] for i in batch]
        found = [negative(i) for i in batch] if negative is not None else []
        # The hard negatives join the batch's candidates only when every pair has one.
        negatives = [n for n in found if n is not None]
        run.with_hard_negative += len(negatives)
        columns = [anchors, positives] + ([negatives] if len(negatives) == len(batch) else [])
        features = [model.preprocess(texts) for texts in columns]
        value = loss(features, torch.empty(0))
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        schedule.step()
        run.steps, run.pairs_seen = number, run.pairs_seen + len(batch)
        run.last_loss = float(value.detach())
        run.first_loss = run.first_loss if run.first_loss is not None else run.last_loss
        run.seconds = time.perf_counter() - started
        if paced and number >= _PACE_STEPS:
            horizon.fit(int(config.max_seconds / (run.seconds / number)))
        if progress is not None and (number % 10 == 0 or number == len(batches)):
            progress(f"step {number}/{horizon.steps}, loss {run.last_loss:.3f}, {run.seconds:.0f}s")
        if config.max_seconds and run.seconds >= config.max_seconds and number < len(batches):
            run.stopped_by = "time"
            break
    else:
        run.stopped_by = "steps" if config.max_steps else "pairs"
    model.eval()
    return run


_PACE_STEPS = 3  # steps timed to learn how many fit in a time budget


class _Horizon:
    """The learning rate's schedule over the steps a run will take, which a time budget
    learns as it goes: linear warm-up, then linear decay to 0."""

    def __init__(self, steps: int, warmup_share: float) -> None:
        self.batches = self.steps = steps
        self.share = warmup_share

    def fit(self, steps: int) -> None:
        """The run will take `steps`: never more than the batches, nor fewer than paced."""
        self.steps = max(_PACE_STEPS, min(self.batches, steps))

    def rate(self, step: int) -> float:
        warmup = max(1, int(self.steps * self.share))
        return min((step + 1) / warmup, max(0.0, (self.steps - step) / self.steps))


@dataclass
class TrainedModel:
    directory: Path
    card: dict[str, Any] = field(default_factory=dict)


def train_embedder(
    catalog: Catalog,
    lexical: LexicalIndex,
    out_root: Path,
    questions: Sequence[tuple[str, str]],
    config: TrainingConfig,
    *,
    models_cache: Path,
    pool: int = DEFAULT_POOL,
    base: Path | None = None,
    progress: Progress | None = None,
) -> TrainedModel:
    """Mine, train, judge before and after on `questions` (whose papers are in no pair),
    export int8 ONNX and write the versioned folder under `out_root` with its card."""
    from ingest.embedders.onnx_embedder import cached_onnx_model
    from ingest.embedders.onnx_export import quiet_progress_bars

    say = progress or (lambda _: None)
    base = base or model_dir()
    started = time.perf_counter()
    held = held_out(catalog, questions, pool, config.seed)
    excluded = held.papers
    say(f"mining pairs ({len(excluded)} papers held out for evaluation)")
    pairs = mine_pairs(catalog, excluded, config.pairs_per_kind, config.seed)
    say(f"{len(pairs)} pairs")
    mined_seconds = time.perf_counter() - started
    if config.threads:
        import torch

        torch.set_num_threads(config.threads)
    model = load_model(base, config.max_tokens)
    say("judging the base model")
    before = dense_recall(model, catalog, held)
    run = fine_tune(
        model,
        [(p.anchor, p.positive) for p in pairs],
        config,
        say,
        lambda index: hard_negative(pairs[index], lexical, catalog, excluded),
    )
    model.max_seq_length = MODEL_MAX_TOKENS
    say("judging the trained model")
    after = dense_recall(model, catalog, held)
    now = datetime.now(UTC).replace(microsecond=0)
    version = f"{now.strftime('%Y%m%dT%H%M%SZ')}-s{config.seed}"
    directory = out_root / f"minilm-library-{version}"
    try:
        out_root.mkdir(parents=True, exist_ok=True)
        with quiet_progress_bars():
            model.save(str(directory))
    except OSError as e:
        raise EmbedderError(f"cannot write the model to {str(directory)!r}: {e}") from e
    say("exporting int8 ONNX")
    onnx = cached_onnx_model(directory, models_cache, quantize=True)
    counts = {kind: sum(1 for p in pairs if p.kind == kind) for kind in PAIR_KINDS}
    card = {
        "name": f"paperchat/minilm-library-{version}",
        "version": version,
        "base": MODEL_NAME if base == model_dir() else str(base),
        "created": now.isoformat().replace("+00:00", "Z"),
        "data": {
            "papers": _count(catalog, "papers"),
            "pairs": counts,
            "held_out_papers": len(excluded),
        },
        "training": {**asdict(config), **asdict(run), "mining_seconds": round(mined_seconds, 1)},
        "evaluation": {
            "questions": len(held.questions),
            "pool_papers": len(held.pool),
            "dense_recall_at_5_before": before,
            "dense_recall_at_5_after": after,
        },
        "onnx_int8": {"file": onnx.name, "bytes": onnx.stat().st_size},
    }
    (directory / CARD).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    (directory / "README.md").write_text(model_card(card), encoding="utf-8")
    return TrainedModel(directory, card)


def _count(catalog: Catalog, table: str) -> int:
    return int(catalog.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def model_card(card: dict[str, Any]) -> str:
    """The card in words, for README.md."""
    data, training, evaluation = card["data"], card["training"], card["evaluation"]
    pairs = ", ".join(f"{n:,} {kind}" for kind, n in data["pairs"].items())

    def figure(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    return "\n".join(
        [
            f"# {card['name']}",
            "",
            f"{card['base']} fine-tuned on pairs mined from a library of {data['papers']:,} "
            "papers by `paperchat embedder train`, for retrieval over that library.",
            "",
            "## Data",
            "",
            f"Pairs: {pairs}. {data['held_out_papers']:,} papers whose "
            "questions judge the model are in no pair.",
            "",
            "## Training",
            "",
            f"MultipleNegativesRankingLoss (in-batch and hard negatives), batch "
            f"{training['batch_size']}, learning rate {training['learning_rate']}, "
            f"{training['max_tokens']} word pieces per text, seed {training['seed']}: "
            f"{training['steps']} steps ({training['pairs_seen']:,} pairs) in "
            f"{training['seconds']:.0f} s on the CPU, stopped by {training['stopped_by']}; "
            f"{training['with_hard_negative']:,} of them with a hard negative (BM25's best "
            "passage from another paper); "
            f"loss {figure(training['first_loss'])} -> {figure(training['last_loss'])}.",
            "",
            "## Figures",
            "",
            f"Dense recall@5 of the gold paper for {evaluation['questions']} held-out questions "
            f"among {evaluation['pool_papers']:,} papers: "
            f"{figure(evaluation['dense_recall_at_5_before'])} before, "
            f"{figure(evaluation['dense_recall_at_5_after'])} after.",
            "",
            f"int8 ONNX graph: {card['onnx_int8']['file']}, "
            f"{card['onnx_int8']['bytes'] / 1e6:.1f} MB.",
            "",
            "Use it with `PAPERCHAT_EMBEDDER_MODEL=<this folder>`, then `paperchat index reembed`.",
            "",
        ]
    )


def read_card(directory: Path) -> dict[str, Any]:
    """The card of the trained model in `directory`; a clear error when there is none."""
    path = directory / CARD
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise EmbedderError(
            f"{str(directory)!r} holds no trained embedder ({CARD} is missing): give the "
            "folder `paperchat embedder train` wrote"
        ) from e
    except (OSError, ValueError) as e:
        raise EmbedderError(f"cannot read {str(path)!r}: {e}") from e
    if not isinstance(card, dict) or not isinstance(card.get("name"), str):
        raise EmbedderError(f"{str(path)!r} names no model")
    return card


def trained_name(directory: Path) -> str:
    """The name an index embedded by this model records."""
    return str(read_card(directory)["name"])
