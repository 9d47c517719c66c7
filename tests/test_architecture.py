"""The layers' import directions hold, and the check would see them broken."""

from __future__ import annotations

from pathlib import Path

from tests.support.architecture import violations
from tests.support.data import ROOT


def _write(root: Path, module: str, source: str) -> None:
    path = root / (module.replace(".", "/") + ".py")
    for parent in reversed(path.relative_to(root).parents[:-1]):
        (root / parent).mkdir(exist_ok=True)
        (root / parent / "__init__.py").touch()
    path.write_text(source, encoding="utf-8")


def test_the_product_imports_only_downwards() -> None:
    found = violations(ROOT)

    assert [str(v) for v in found] == []


def test_a_forbidden_import_is_reported_with_its_line(tmp_path: Path) -> None:
    _write(tmp_path, "ingest.index.catalog", "import json\nfrom chat.rag.sources import Source\n")
    _write(tmp_path, "chat.rag.retrieval", "from ingest.index.store import ChunkStore\n")
    _write(tmp_path, "chat.rag.answering", "def f():\n    from fastapi import Request\n")
    _write(tmp_path, "chat.rag.extractive", "from ingest.pdf.parsing import parse_pdf\n")
    _write(tmp_path, "chat.service.app", "from chat import cli\n")
    _write(tmp_path, "chat.wiring", "from chat.rag.retrieval import Retriever\n")

    found = violations(tmp_path)

    assert sorted((v.module, v.imported, v.line) for v in found) == [
        ("chat.rag.answering", "fastapi", 2),
        ("chat.rag.extractive", "ingest.pdf.parsing", 1),
        ("chat.service.app", "chat.cli", 1),
        ("ingest.index.catalog", "chat.rag.sources", 2),
    ]


def test_relative_imports_are_resolved_before_they_are_judged(tmp_path: Path) -> None:
    _write(tmp_path, "chat.rag.retrieval", "from . import fusion\nfrom ..service import app\n")
    _write(tmp_path, "chat.rag.__init__", "from .. import wiring\n")

    found = violations(tmp_path)

    assert sorted((v.module, v.imported) for v in found) == [
        ("chat.rag", "chat.wiring"),
        ("chat.rag.retrieval", "chat.service"),
    ]
