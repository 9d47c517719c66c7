"""The `slow` marker: every test that needs a long-to-make fixture has it, so the quick loop
(`pytest -m "not slow"`) stays quick when tests are added."""

from __future__ import annotations

import ast
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import QUICK_SHARED_FIXTURES, SLOW_FIXTURES, needs_time
from tests.support.data import ROOT

TESTS = ROOT / "tests"


def _shared_fixtures() -> dict[str, list[str]]:
    """Every fixture of the suite made once for a module, a package or the session: its
    name and the fixtures it takes."""
    found: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if not (
                    isinstance(decorator, ast.Call)
                    and ast.unparse(decorator.func) == "pytest.fixture"
                ):
                    continue
                options = {k.arg: k.value for k in decorator.keywords}
                scope, name = options.get("scope"), options.get("name")
                if isinstance(scope, ast.Constant) and scope.value != "function":
                    key = str(name.value) if isinstance(name, ast.Constant) else node.name
                    found[key] = [a.arg for a in node.args.args]
    return found


def _slow(name: str, fixtures: dict[str, list[str]]) -> bool:
    """Whether `name` is a slow fixture or takes one, directly or through another."""
    if name in SLOW_FIXTURES:
        return True
    return any(_slow(used, fixtures) for used in fixtures.get(name, []) if used != name)


def _item(*fixtures: str, **params: str) -> Any:
    callspec = SimpleNamespace(params=params) if params else None
    return SimpleNamespace(fixturenames=list(fixtures), callspec=callspec)


def _quick_loop(*paths: str) -> list[str]:
    """The node ids `pytest -m "not slow"` collects from `paths`."""
    options = ["--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not slow"]
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", *options, *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    return [line for line in listed.stdout.splitlines() if "::" in line]


def test_every_fixture_made_once_for_many_tests_is_classed_slow_or_quick() -> None:
    fixtures = _shared_fixtures()

    unclassed = sorted(
        name for name in fixtures if name not in QUICK_SHARED_FIXTURES and not _slow(name, fixtures)
    )

    assert unclassed == [], "add each to SLOW_FIXTURES or QUICK_SHARED_FIXTURES in conftest.py"
    assert not SLOW_FIXTURES & QUICK_SHARED_FIXTURES
    assert sorted((SLOW_FIXTURES | QUICK_SHARED_FIXTURES) - set(fixtures)) == []
    assert all(_slow(name, fixtures) for name in ("api", "web", "reader_web", "api_settings"))
    assert not any(_slow(name, fixtures) for name in QUICK_SHARED_FIXTURES)


def test_a_test_taking_a_slow_fixture_or_the_chroma_server_needs_time() -> None:
    through_the_api = _item("api", "api_settings", "small_index", "fake_llm", "tmp_path")
    on_the_fake_alone = _item("fake_llm", "tmp_path")
    on_the_server = _item("store", "tmp_path", store="server")
    on_postgresql = _item("database_url", database_url="postgresql")

    judged = [needs_time(i) for i in (through_the_api, on_the_fake_alone, on_the_server)]

    assert judged == [True, False, True]
    assert not needs_time(on_postgresql)


def test_every_test_of_this_run_that_needs_time_is_marked_slow(
    request: pytest.FixtureRequest,
) -> None:
    items = request.session.items

    unmarked = [i.nodeid for i in items if needs_time(i) and i.get_closest_marker("slow") is None]

    assert unmarked == []


def test_the_quick_loop_leaves_out_the_index_tests_and_the_slow_modules() -> None:
    retriever = "tests/chat/rag/retrieval/test_retriever.py"

    browser = "tests/chat/service/web/dock/test_dock.py"

    quick = _quick_loop(retriever, "tests/chat/cli/test_ingest.py", browser)

    names = {node.split("::")[1].split("[")[0] for node in quick}
    assert {node.split("::")[0] for node in quick} == {retriever}
    assert "test_the_first_ranked_paper_may_fill_more_of_the_sources" in names
    assert "test_sources_are_numbered_and_carry_what_a_citation_needs" not in names  # small_index
