"""`paperchat eval retrieval`: recall and MRR of the gold papers, per retriever."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from chat.cli.main import data_dir_option, emit, json_option, wiring_for


@click.group("eval")
def evaluate() -> None:
    """Measure retrieval and answers on questions with gold answers."""


@evaluate.command("retrieval")
@click.argument("questions", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--k", type=click.IntRange(min=1, max=50), default=10, show_default=True,
              help="Chunks given to the answerer (for the gold-page measure).")  # fmt: skip
@data_dir_option
@json_option
def eval_retrieval(questions: Path, k: int, data_dir: Path | None, as_json: bool) -> None:
    """Recall@1/5/10 and MRR of the gold paper: dense, BM25 and hybrid, by question type."""
    from chat.rag.retrieval import evaluation

    index = wiring_for(data_dir)
    retriever = index.retriever
    retriever.config = dataclasses.replace(retriever.config, k=k)
    report = evaluation.evaluate(retriever, evaluation.load_questions(questions))
    emit(report, as_json, evaluation.table(report))
    index.close()
