"""`paperchat embedder train`: fine-tune the embedder on the library's own pairs."""

from __future__ import annotations

from pathlib import Path

import click

from chat.cli.main import data_dir_option, emit, json_option, names_a_full_disk, wiring_for
from ingest.embedders.training import DEFAULT_POOL, TrainingConfig


@click.group()
def embedder() -> None:
    """Adapt the embedding model to the library."""


@embedder.command("train")
@data_dir_option
@click.option(
    "--questions",
    "question_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="JSON-lines questions (question, gold_id) to judge the model on before and after; "
    "their papers are left out of training. May be given several times.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the versioned model folder is written (default: embedders/ in the data dir).",
)
@click.option(
    "--max-seconds",
    type=click.FloatRange(min=0),
    default=TrainingConfig.max_seconds,
    show_default=True,
    help="Training time budget; 0: none.",
)
@click.option(
    "--max-steps",
    type=click.IntRange(min=0),
    default=TrainingConfig.max_steps,
    help="Steps at most; 0: no limit.",
)
@click.option(
    "--batch-size", type=click.IntRange(min=2), default=TrainingConfig.batch_size, show_default=True
)
@click.option(
    "--learning-rate",
    type=click.FloatRange(min=0, min_open=True),
    default=TrainingConfig.learning_rate,
)
@click.option("--seed", type=int, default=TrainingConfig.seed, show_default=True)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=8, max=256),
    default=TrainingConfig.max_tokens,
    show_default=True,
    help="Word pieces read of each text while training.",
)
@click.option(
    "--pool",
    type=click.IntRange(min=0),
    default=DEFAULT_POOL,
    show_default=True,
    help="Papers besides the questions' own searched when judging the model.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    help="torch threads (default: torch's own choice, every core; on a machine shared with "
    "other work 1 wastes less time waiting).",
)
@json_option
@names_a_full_disk
def embedder_train(
    data_dir: Path | None,
    question_files: tuple[Path, ...],
    out: Path | None,
    max_seconds: float,
    max_steps: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    max_tokens: int,
    pool: int,
    threads: int | None,
    as_json: bool,
) -> None:
    """Fine-tune the packaged all-MiniLM-L6-v2 on pairs mined from the index (title and
    abstract, heading and section, caption and citing passage, long form and definition,
    citing sentence and cited abstract) with BM25 hard negatives, on the CPU, then write a
    versioned model folder with its int8 ONNX graph and model card. Use it with
    PAPERCHAT_EMBEDDER_MODEL=<folder>, then `paperchat index reembed`."""
    from ingest.embedders.held_out import read_questions
    from ingest.embedders.training import train_embedder

    idx = wiring_for(data_dir)
    config = TrainingConfig(
        seed=seed,
        batch_size=batch_size,
        learning_rate=learning_rate,
        max_seconds=max_seconds,
        max_steps=max_steps,
        max_tokens=max_tokens,
        threads=threads,
    )
    questions = read_questions(question_files)
    trained = train_embedder(
        idx.catalog,
        idx.lexical,
        out or idx.settings.data_dir / "embedders",
        questions,
        config,
        models_cache=idx.settings.models_dir,
        pool=pool,
        progress=lambda line: click.echo(f"train: {line}", err=True),
    )
    card = trained.card
    evaluation, training = card["evaluation"], card["training"]

    def shown(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    text = (
        f"{trained.directory}\n"
        f"{card['name']}: {training['steps']} steps in {training['seconds']:.0f}s on "
        f"{sum(card['data']['pairs'].values())} pairs; dense recall@5 on "
        f"{evaluation['questions']} held-out questions "
        f"{shown(evaluation['dense_recall_at_5_before'])} -> "
        f"{shown(evaluation['dense_recall_at_5_after'])}\n"
        f"use it: PAPERCHAT_EMBEDDER_MODEL={trained.directory} paperchat index reembed"
    )
    emit({"directory": str(trained.directory), **card}, as_json, text)
    idx.close()
