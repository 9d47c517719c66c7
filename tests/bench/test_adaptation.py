"""The adaptation benchmark's held-out questions and its fixed split."""

from __future__ import annotations

import json
from collections import Counter

from bench.quality.adaptation import HELD_OUT, LEVERS, _chosen, split_of
from tests.support.data import EVAL


def _rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in HELD_OUT.read_text(encoding="utf-8").splitlines()]


def test_the_held_out_questions_are_fifty_of_each_style_split_in_halves() -> None:
    rows = _rows()

    assert Counter(r["type"] for r in rows) == {"short": 50, "layman": 50, "messy": 50}
    halves = Counter((r["type"], split_of(r["qid"])) for r in rows)
    assert set(halves.values()) == {25}
    assert all(3 <= len(r["question"].split()) <= 6 for r in rows if r["type"] == "short")


def test_no_held_out_question_is_about_a_paper_a_development_question_is_about() -> None:
    development = set()
    for name in ("questions-abstracts.jsonl", "questions-hard.jsonl", "questions-pdfs.jsonl"):
        for line in (EVAL / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and (gold := json.loads(line).get("gold_id")):
                development.add(gold)

    assert not {r["gold_id"] for r in _rows()} & development


def test_levers_named_together_keep_each_ones_setting() -> None:
    config = _chosen(["RM3", "fusion weights"])

    assert config.rm3.terms == 10
    assert config.style.enabled
    assert not config.expansion.all_names
    assert LEVERS[0][0] == "default"
