"""The retrieval benchmark's split of the questions and its variants of the settings."""

from __future__ import annotations

from bench.quality.retrieval import VARIANTS, split_of, variant_config
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
