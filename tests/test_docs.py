"""Every page of the documentation site names only paths and modules that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.data import ROOT
from tests.support.docs import missing_paths, named_modules, unresolved_modules

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def _name(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


def test_the_site_has_its_pages() -> None:
    names = {_name(p) for p in PAGES}

    assert {"index.md", "install.md", "api.md", "architecture.md", "security.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_path_a_page_names_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")

    missing = missing_paths(text, ROOT)

    assert missing == []


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_module_a_page_names_can_be_imported(page: Path) -> None:
    text = page.read_text(encoding="utf-8")

    unresolved = unresolved_modules(text)

    assert unresolved == []


def test_the_pages_name_modules_at_all() -> None:
    named = set().union(*(named_modules(p.read_text(encoding="utf-8")) for p in PAGES))

    assert len(named) > 5
