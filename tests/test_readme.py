"""The README is a front door: short, and naming only paths and modules that exist."""

from __future__ import annotations

import gzip
import json
import re
from itertools import islice

import pytest

from tests.support import data
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


def _section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _default_corpus() -> tuple[set[str], set[str]]:
    """The ids of the abstracts and of the PDFs `./scripts/start` ingests by default."""
    start = (ROOT / "scripts" / "start").read_text(encoding="utf-8")
    default = re.search(r"PAPERCHAT_CORPUS_LIMIT:-(\d+)", start)
    assert default is not None
    limit = int(default[1])
    with gzip.open(data.ABSTRACTS, "rt", encoding="utf-8") as lines:
        abstracts = {json.loads(line)["id"] for line in islice(lines, limit)}
    pdfs = {re.sub(r"v\d+$", "", pdf.stem) for pdf in data.PDFS.glob("*.pdf")}
    return abstracts, pdfs


@pytest.mark.integration
def test_the_papers_the_first_question_names_are_in_the_default_corpus_as_it_says() -> None:
    section = _section("The first question")

    abstracts, pdfs = _default_corpus()

    named = set(re.findall(r"`(\d{4}\.\d{4,5})`", section))
    claimed = set(re.findall(r"`(\d{4}\.\d{4,5})`, is in the default corpus", section))
    only_pdfs = named - abstracts
    assert named
    assert claimed <= abstracts
    assert only_pdfs <= pdfs
    for paper in only_pdfs:
        assert re.search(rf"`{re.escape(paper)}`[^.]*once its PDF is read", section), paper
