"""The README is a front door: short, and naming only paths and modules that exist."""

from __future__ import annotations

from tests.support.data import ROOT
from tests.support.docs import missing_paths, named_paths, unresolved_modules

README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 300


def test_the_readme_is_at_most_300_lines() -> None:
    lines = README.splitlines()

    assert len(lines) <= MAX_LINES


def test_every_path_the_readme_names_exists() -> None:
    named = named_paths(README)

    missing = missing_paths(README, ROOT)

    assert len(named) > 10
    assert missing == []


def test_every_module_the_readme_names_can_be_imported() -> None:
    unresolved = unresolved_modules(README)

    assert unresolved == []
