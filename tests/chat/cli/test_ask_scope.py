"""`paperchat ask --paper` and `--author` with what the index does not hold: one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.running.cli import environment, run

pytestmark = pytest.mark.timeout(300)

QUESTION = "What do they propose?"


@pytest.fixture
def env(small_index_dir: Path, models_cache: Path) -> dict[str, str]:
    return environment(small_index_dir, models_cache)


def test_ask_about_a_paper_not_in_the_index_exits_2_in_one_line(env: dict[str, str]) -> None:
    result = run(env, "ask", QUESTION, "--paper", "9999.99999v2", "--paper", "1503.02531")

    assert result.code == 2
    assert result.stderr.strip() == "paperchat: error: paper '9999.99999v2' not in the index"
    assert result.stdout == ""


def test_ask_about_an_unknown_author_exits_2_in_one_line(env: dict[str, str]) -> None:
    result = run(env, "ask", QUESTION, "--author", "Nobody Atall")

    assert result.code == 2
    assert result.stderr.strip() == "paperchat: error: no author 'Nobody Atall' in the index"


def test_ask_with_an_author_answers_from_their_papers_only(env: dict[str, str]) -> None:
    result = run(env, "ask", QUESTION, "--author", "j. prange", "--json")

    assert result.code == 0, result.stderr
    sources = {s["id"] for s in result.json["sources"]}
    assert sources
    assert sources <= {"2112.07874", "2302.08150", "2305.18915"}
