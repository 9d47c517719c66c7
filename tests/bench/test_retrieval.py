"""The retrieval benchmark's split of the questions and its variants of the settings."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bench.quality.retrieval import (
    VARIANTS,
    compare_variants,
    split_of,
    variant_config,
    variants_table,
)
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.evaluation import load_questions
from tests.support.data import EVAL


def test_a_third_of_the_questions_is_held_out_by_their_text_alone() -> None:
    questions = [q.question for q in load_questions(EVAL / "questions-hard.jsonl")]

    held_out = [q for q in questions if split_of(q) == "held-out"]

    assert 0.25 <= len(held_out) / len(questions) <= 0.42
    # Fixed by the text: the same question falls on the same side in any file, any order.
    assert split_of("third one") == "held-out"
    assert split_of("a question") == "dev"


def test_the_first_variant_turns_both_levers_off_and_keeps_the_rest() -> None:
    base = RetrievalConfig(k=5)

    off = variant_config(base, VARIANTS[0][1])

    assert off.synonyms.terms == 0
    assert off.dense_feedback.passages == 0
    assert off.k == 5
    assert off.synonyms.weight == base.synonyms.weight


def test_the_layman_variant_is_dense_feedback_for_the_layman_style_alone() -> None:
    base = RetrievalConfig()
    variants = dict(VARIANTS)

    every = variant_config(base, variants["dense feedback"]).dense_feedback
    layman = variant_config(base, variants["dense feedback, layman only"]).dense_feedback

    assert every.layman_share == 0
    assert layman == dataclasses.replace(every, layman_share=base.style.layman_share)


class _Retriever:
    """Enough of a Retriever for the variants' loop over no questions."""

    def __init__(self, config: RetrievalConfig) -> None:
        self.config = config
        self.configs: list[RetrievalConfig] = []

    def with_config(self, config: RetrievalConfig) -> _Retriever:
        self.configs.append(config)
        return self


def test_a_variant_needing_wordnet_is_left_out_and_said_so_when_the_database_is_missing(
    tmp_path: Path,
) -> None:
    base = RetrievalConfig()
    base = dataclasses.replace(
        base, synonyms=dataclasses.replace(base.synonyms, wordnet_dir=str(tmp_path))
    )
    retriever = _Retriever(base)

    report = compare_variants(retriever, [], ("dev",))  # type: ignore[arg-type]

    assert report["WordNet synonyms"] == {"skipped": f"no WordNet database in {tmp_path}"}
    assert "skipped" in report["both"]
    # Only the variants that do not widen the query by WordNet ran.
    assert [c.synonyms.terms for c in retriever.configs] == [0, 0, 0]
    assert {row["variant"] for row in variants_table(report, ("dev",)).rows} == {
        "levers off",
        "dense feedback",
        "dense feedback, layman only",
    }
