"""`paperchat ask` and `paperchat eval retrieval` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.data import EVAL
from tests.support.running.cli import environment, run
from tests.support.running.net import unused_port

pytestmark = pytest.mark.timeout(300)

QUESTION = "How does Fusion-in-Decoder combine the retrieved passages?"


@pytest.fixture
def env(small_index_dir: Path, models_cache: Path) -> dict[str, str]:
    return environment(small_index_dir, models_cache)


def test_ask_in_extractive_mode_streams_a_cited_answer(env: dict[str, str]) -> None:
    streamed = run(env, "ask", QUESTION)
    as_json = run(env, "ask", QUESTION, "--json")

    assert streamed.code == 0, streamed.stderr
    assert "[arXiv:2007.01282]" in streamed.stdout
    assert "Sources:" in streamed.stdout
    payload = as_json.json
    assert payload["mode"] == "extractive"
    assert "2007.01282" in payload["citations"]
    assert payload["dropped_citations"] == []
    assert payload["sources"][0]["id"] == "2007.01282"
    assert payload["answer"] in streamed.stdout


def test_ask_in_openai_mode_guards_the_model_citations(env: dict[str, str]) -> None:
    with FakeOpenAI() as fake:
        fake.script_chat(
            ChatScript(
                pieces=(
                    "FiD concatenates [arXiv:2007.",
                    "01282] [9].",
                )
            )
        )
        llm_env = {**env, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "test-key"}

        result = run(llm_env, "ask", QUESTION, "--json")

    payload = result.json
    assert result.code == 0, result.stderr
    assert payload["mode"] == "llm"
    assert payload["answer"].startswith("FiD concatenates [arXiv:2007.01282]")
    assert "[9]" not in payload["answer"]
    assert payload["dropped_citations"] == ["[9]"]
    assert payload["model"] == "gpt-4o-mini"


def test_ask_with_a_dead_upstream_fails_in_one_line(env: dict[str, str]) -> None:
    dead = {**env, "OPENAI_BASE_URL": f"http://127.0.0.1:{unused_port()}/v1"}

    result = run(dead, "ask", QUESTION)

    assert result.code == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().startswith("paperchat: error:")


def test_ask_scoped_to_a_paper_cites_only_that_paper(env: dict[str, str]) -> None:
    result = run(env, "ask", "What is the temperature used for?", "--paper", "1503.02531", "--json")

    payload = result.json
    assert {s["id"] for s in payload["sources"]} == {"1503.02531"}
    assert set(payload["citations"]) <= {"1503.02531"}


def test_eval_retrieval_reports_every_retriever_by_type(
    env: dict[str, str], tmp_path: Path
) -> None:
    with (EVAL / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines][:40]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))

    result = run(env, "eval", "retrieval", str(questions), "--json")

    report = result.json
    answerable = sum(1 for r in rows if r["gold_id"])
    assert result.code == 0, result.stderr
    assert report["questions"] == answerable
    assert report["unanswerable"] == len(rows) - answerable
    for name in ("dense", "bm25", "hybrid"):
        assert set(report[name]) >= {"recall@1", "recall@5", "recall@10", "mrr"}
    assert report["hybrid"]["recall@5"] >= 0.9
    assert set(report["by_type"]) == {"keyword", "paraphrase"}
